// User is owned by the accounts subgraph; markets only references it (traders of a trade).
import { builder } from '../builder.ts';

export const UserRef = builder
  .externalRef('User', builder.keyDirective(builder.selection<{ address: string }>('address'), false))
  .implement({ fields: (t) => ({ address: t.exposeString('address') }) });
