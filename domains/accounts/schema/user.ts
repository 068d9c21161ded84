// User @key(address): an account, whose fields (fills, orders, TWAP slices and statuses, funding, ledger,
// liquidations, perp account state) are its capabilities' (capabilities.ts). Owned here; the markets subgraph
// references it (the traders of a trade). Query.user returns it (the `user` capability).

import { builder } from '../builder.ts';

interface UserParent {
  address: string;
}

export const UserRef = builder.objectRef<UserParent>('User').implement({
  description: 'An account, by its lowercase 0x address',
  fields: (t) => ({
    address: t.exposeString('address'),
  }),
});

builder.asEntity(UserRef, {
  key: builder.selection<{ address: string }>('address'),
  resolveReference: (ref) => ({ address: ref.address.toLowerCase() }),
});
