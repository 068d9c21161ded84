// A hand-written EVM history for the evm compat and schema tests: three HyperEVM blocks (ERC-20 mints, transfers and
// burns, NFTs, two registered tokens, a system transaction, HIP-3 backstop principal), ledger events (a deposit, an
// agent send between dexes, an internal transfer) and two fills the xyz backstop absorbed, loaded by the real ingest.
import type { EvmBlockEvent, EvmTransfer, EvmTx } from '../wire/node-lines.ts';
import { ledgerEvent, NodeFiles } from './accounts-files.ts';
import type { TestDatabase } from './db.ts';
import { addr, hash, nodeFill } from './node-files.ts';

export const ALICE = addr(0xa1);
export const BOB = addr(0xb2);
export const CAROL = addr(0xc3);
export const DAVE = addr(0xd1);
export const DEPLOYER = addr(0xd4);
export const SUB = addr(0xd5);
const ZERO = addr(0);
/** The spot token 268's bridge (system) address: it mints like the zero address. */
export const BRIDGE = `0x20${(268).toString(16).padStart(38, '0')}`;
export const TOKEN = '0x00000000000000000000000000000000000000aa';
export const NFT = '0x00000000000000000000000000000000000000bb';
/** The simulated node lists HIP-3 dex `xyz` at index 1: its backstop is 0x4000…0001. */
export const BACKSTOP = `0x4${'0'.repeat(38)}1`;
/** An hour ago, on a second: recent enough for the backstop's last-24 h counter. */
export const T = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;
const E6 = 1_000_000n;

let txSeq = 0;
function tx(from: string, to: string | null, isSystem = false): EvmTx {
  txSeq++;
  return {
    hash: hash(0x1000 + txSeq),
    index: 0,
    type: isSystem ? 0 : 2,
    from,
    to,
    value: '0',
    gasLimit: isSystem ? 0 : 60_000,
    gasUsed: isSystem ? 0 : 50_000,
    success: true,
    inputLen: 68,
    isSystem,
  };
}

function evmBlock(
  number: number,
  txs: EvmTx[],
  transfers: Omit<EvmTransfer, 'logIndex' | 'txHash'>[],
  extra: Partial<EvmBlockEvent> = {},
): EvmBlockEvent {
  txs.forEach((t, i) => {
    t.index = i;
  });
  return {
    number,
    hash: hash(0x9000 + number),
    time: T + (number - 100) * 1000,
    gasUsed: txs.reduce((s, t) => s + t.gasUsed, 0),
    txs,
    transfers: transfers.map((t, i) => ({ ...t, logIndex: i, txHash: (txs[0] as EvmTx).hash })),
    backstopTransfers: [],
    ...extra,
  };
}

const erc20 = (from: string, to: string, whole: bigint): Omit<EvmTransfer, 'logIndex' | 'txHash'> => ({
  token: TOKEN,
  standard: 'erc20',
  from,
  to,
  value: (whole * E6).toString(),
  tokenId: null,
});
const nft = (from: string, to: string, id: number): Omit<EvmTransfer, 'logIndex' | 'txHash'> => ({
  token: NFT,
  standard: 'erc721',
  from,
  to,
  value: '1',
  tokenId: String(id),
});

export const SEND = {
  type: 'send',
  user: ALICE,
  destination: BOB,
  sourceDex: '',
  destinationDex: 'xyz',
  token: 'USDC',
  amount: '25.0',
  usdcValue: '25.0',
  fee: '0.0',
  nativeTokenFee: '0.0',
  nonce: 1,
  feeToken: '',
};

/** Writes the history as node files and ingests it into `db`. */
export async function loadEvmHistory(db: TestDatabase): Promise<void> {
  const files = new NodeFiles();
  const b100 = evmBlock(
    100,
    [tx(ALICE, TOKEN), tx(BRIDGE, TOKEN, true)],
    [erc20(ZERO, ALICE, 1000n), erc20(BRIDGE, BOB, 500n)],
    {
      tokens: [
        { address: TOKEN, symbol: 'TKN', decimals: 6, standard: 'erc20' },
        { address: NFT, symbol: 'PIX', decimals: 0, standard: 'erc721' },
      ],
    },
  );
  const b101 = evmBlock(
    101,
    [tx(ALICE, TOKEN), tx(ALICE, NFT)],
    [erc20(ALICE, BOB, 250n), erc20(ALICE, CAROL, 100n), nft(ZERO, ALICE, 1), nft(ZERO, ALICE, 2), nft(ZERO, BOB, 3)],
  );
  const b102 = evmBlock(
    102,
    [tx(BOB, TOKEN), tx(DEPLOYER, null)],
    [erc20(BOB, ZERO, 50n), nft(ALICE, CAROL, 1), erc20(CAROL, DAVE, 95n)],
    {
      backstopTransfers: [
        { txHash: hash(0x2001), dex: 'xyz', isDeposit: true, signer: DEPLOYER, amount: '10000.0' },
        { txHash: hash(0x2002), dex: 'xyz', isDeposit: true, signer: SUB, amount: '5000.5' },
        { txHash: hash(0x2003), dex: 'xyz', isDeposit: false, signer: DEPLOYER, amount: '3000.25' },
        { txHash: hash(0x2004), dex: 'abc', isDeposit: true, signer: DEPLOYER, amount: '2000.0' },
      ],
    },
  );
  for (const b of [b100, b101, b102]) files.add('evm_blocks_by_block', b.time, [b]);
  files.add('misc_events_by_block', T, [ledgerEvent(T, hash(0x3001), [ALICE], { type: 'deposit', usdc: '100.0' })]);
  files.add('misc_events_by_block', T + 1000, [ledgerEvent(T + 1000, hash(0x3002), [ALICE, BOB], SEND)]);
  files.add('misc_events_by_block', T + 2000, [
    ledgerEvent(T + 2000, hash(0x3003), [ALICE, CAROL], {
      type: 'internalTransfer',
      usdc: '5.0',
      user: ALICE,
      destination: CAROL,
      fee: '0.0',
    }),
  ]);
  const backstopFill = (n: number, px: string, sz: string, fee: string) =>
    [
      BACKSTOP,
      nodeFill({
        coin: 'xyz:XYZ100',
        px,
        sz,
        fee,
        side: 'B',
        time: T + n * 1000,
        tid: 500 + n,
        oid: 700 + n,
        hash: hash(0x4000 + n),
        dir: 'Open Long',
        crossed: false,
        liquidation: { liquidatedUser: CAROL, markPx: px, method: 'backstop' },
      }),
    ] as const;
  files.add('node_fills_by_block', T + 1000, [backstopFill(1, '100.0', '2.0', '0.1')]);
  files.add('node_fills_by_block', T + 2000, [backstopFill(2, '101.0', '1.0', '0.05')]);
  await files.load(db);
}
