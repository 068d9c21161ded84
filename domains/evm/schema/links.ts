// The accounts a front end follows from EVM records: a holder, a transfer's two sides and a transaction's
// recipient, each as the User entity (address → User, the accounts subgraph's and the others' fields).
import { builder } from '../builder.ts';
import { TransactionRef } from './chain.ts';
import { LedgerTransferRef } from './ledger.ts';
import { TokenHolderRef } from './token.ts';
import { UserRef } from './user.ts';

/** The account of an address; none for an empty or absent one. */
const user = (address: string | null) => (address ? { address: address.toLowerCase() } : null);
const account = (address: string) => ({ address: address.toLowerCase() });

builder.objectFields(TokenHolderRef, (t) => ({
  account: t.field({ type: UserRef, description: 'The holder as an account', resolve: (h) => account(h.address) }),
}));

builder.objectFields(LedgerTransferRef, (t) => ({
  userAccount: t.field({ type: UserRef, description: 'The sending account', resolve: (r) => account(r.address) }),
  destinationAccount: t.field({
    type: UserRef,
    nullable: true,
    description: 'The receiving account (null when the transfer has no destination address)',
    resolve: (r) => user(r.destination),
  }),
}));

builder.objectFields(TransactionRef, (t) => ({
  toAccount: t.field({
    type: UserRef,
    nullable: true,
    description: 'The recipient as an account (null for a contract creation)',
    resolve: (tx) => user(tx.to_addr),
  }),
}));
