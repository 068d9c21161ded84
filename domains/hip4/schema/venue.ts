// Venue and Deployer: who runs HIP-4 markets since permissionless support. A venue has one deployer, a fee scale
// and sub-deployer delegations ([action, [addresses]]); oracle-emitted markets have no venue. Query.venue is the venue capability's (capabilities.ts).
import { builder } from '../builder.ts';
import { UserRef, VenueRef } from './refs.ts';

const DelegationRef = builder.objectRef<[string, string[]]>('SubDeployerDelegation');
DelegationRef.implement({
  description: 'Addresses a deployer allowed to perform one action on its venue',
  fields: (t) => ({
    action: t.string({ resolve: (d) => d[0] }),
    addresses: t.stringList({ listSize: { assumedSize: 5 }, resolve: (d) => d[1] }),
  }),
});

export const DeployerRef = builder.objectRef<{ address: string }>('Deployer');
DeployerRef.implement({
  description: 'The address running one or more venues',
  fields: (t) => ({
    address: t.exposeString('address'),
    account: t.field({ type: UserRef, description: 'The deployer as an account', resolve: (d) => d }),
    venues: t.field({
      type: [VenueRef],
      listSize: { assumedSize: 2 },
      resolve: async (d, _a, ctx) => (await ctx.hip4.venues()).filter((v) => v.deployer === d.address),
    }),
  }),
});

VenueRef.implement({
  description: 'A HIP-4 venue: its deployer, fee scale and delegations (the registry, read about every 10 s)',
  fields: (t) => ({
    name: t.exposeString('venue'),
    deployer: t.field({ type: DeployerRef, resolve: (v) => ({ address: v.deployer }) }),
    feeScale: t.expose('fee_scale', { type: 'Decimal' }),
    subDeployers: t.field({
      type: [DelegationRef],
      listSize: { assumedSize: 3 },
      resolve: (v) => v.sub_deployers,
    }),
    updatedAt: t.expose('updated_at', { type: 'Timestamp' }),
  }),
});

builder.queryFields((t) => ({
  venues: t.field({
    type: [VenueRef],
    description: 'Every HIP-4 venue, by name',
    listSize: { assumedSize: 10 },
    resolve: (_r, _a, ctx) => ctx.hip4.venues(),
  }),
}));
