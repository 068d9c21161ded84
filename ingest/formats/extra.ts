// Streams of our own (ingest/FORMATS.md §2): per-minute asset contexts and borrow/lend reserves, the HIP-4
// registry and HyperEVM blocks.

import {
  backstopTransfersTable,
  evmBlocksTable,
  evmTransactionsTable,
  mintsOrBurns,
  tokenTransfersTable,
} from '../../db/rows/evm.ts';
import { hip4SettlementsTable } from '../../db/rows/hip4.ts';
import { type AssetCtxRow, assetCtxsTable, fundingRatesTable, reserveSamplesTable } from '../../db/rows/markets.ts';
import {
  address,
  array,
  bool,
  dec,
  FieldError,
  int,
  isoTime,
  object,
  optDec,
  optInt,
  optStr,
  str,
} from '../../platform/fields.ts';
import type { Batch } from '../batch.ts';
import { parseIsoNs } from '../files.ts';
import type { StreamLoader } from './loader.ts';

const HOUR = 3_600_000;

export const assetCtxsLoader: StreamLoader = {
  stream: 'asset_ctxs_by_block',
  loadBlock(_ctx, events, batch) {
    for (const event of events) {
      const e = object(event, 'event');
      const row = {
        coin: str(e, 'coin'),
        time: int(e, 'time'),
        funding: optDec(e, 'funding'),
        open_interest: optDec(e, 'open_interest'),
        prev_day_px: optDec(e, 'prev_day_px'),
        day_ntl_vlm: optDec(e, 'day_ntl_vlm'),
        day_base_vlm: optDec(e, 'day_base_vlm'),
        premium: optDec(e, 'premium'),
        oracle_px: optDec(e, 'oracle_px'),
        mark_px: optDec(e, 'mark_px'),
        mid_px: optDec(e, 'mid_px'),
        impact_bid_px: optDec(e, 'impact_bid_px'),
        impact_ask_px: optDec(e, 'impact_ask_px'),
        circulating_supply: optDec(e, 'circulating_supply'),
        total_supply: optDec(e, 'total_supply'),
      };
      storeAssetCtx(batch, row);
      batch.publish('assetCtxs', row);
    }
  },
};

/** A context sample's rows: the sample, and on the hour the rate that settles then (fundingHistory's row). */
export function storeAssetCtx(batch: Batch, row: AssetCtxRow): void {
  batch.add(assetCtxsTable, row);
  if (row.time % HOUR === 0 && row.funding !== null) {
    batch.add(fundingRatesTable, { coin: row.coin, time: row.time, funding_rate: row.funding, premium: row.premium });
  }
}

export const reservesLoader: StreamLoader = {
  stream: 'borrow_lend_reserves_by_block',
  loadBlock(_ctx, events, batch) {
    for (const event of events) {
      const e = object(event, 'event');
      const token = int(e, 'token');
      if (token < 0) throw new FieldError('token: must be >= 0');
      const row = {
        token,
        time: int(e, 'time'),
        token_name: str(e, 'tokenName'),
        borrow_yearly_rate: dec(e, 'borrowYearlyRate'),
        supply_yearly_rate: dec(e, 'supplyYearlyRate'),
        balance: dec(e, 'balance'),
        utilization: dec(e, 'utilization'),
        oracle_px: dec(e, 'oraclePx'),
        ltv: dec(e, 'ltv'),
        total_supplied: dec(e, 'totalSupplied'),
        total_borrowed: dec(e, 'totalBorrowed'),
      };
      batch.add(reserveSamplesTable, row);
      batch.publish('reserves', row);
    }
  },
};

function intArray(value: unknown, key: string): number[] {
  return array(value, key).map((v) => int({ [key]: v }, key));
}

/** Venue/deployer text as stored: '' for oracle-emitted markets. */
function optAddressText(o: Record<string, unknown>, key: string): string {
  const v = optStr(o, key);
  return v ? address(o, key) : '';
}

export const hip4RegistryLoader: StreamLoader = {
  stream: 'hip4_registry_by_block',
  ordered: true,
  loadBlock(ctx, events, batch) {
    for (const event of events) {
      const e = object(event, 'event');
      const time = isoTime(e, 'time', parseIsoNs);
      const inner = object(e.inner, 'inner');
      const kinds = Object.keys(inner);
      if (kinds.length !== 1) throw new FieldError('inner: must hold exactly one event kind');
      const kind = kinds[0] as string;
      const b = object(inner[kind], kind);
      switch (kind) {
        case 'VenueRegistered':
          batch.exec(
            `INSERT INTO hip4.venues (venue, deployer, fee_scale, sub_deployers, updated_at) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (venue) DO UPDATE SET deployer = EXCLUDED.deployer, fee_scale = EXCLUDED.fee_scale,
               sub_deployers = EXCLUDED.sub_deployers, updated_at = EXCLUDED.updated_at
             WHERE hip4.venues.updated_at <= EXCLUDED.updated_at`,
            [
              str(b, 'venue'),
              address(b, 'deployer'),
              dec(b, 'fee_scale'),
              JSON.stringify(array(b.sub_deployers, 'sub_deployers')),
              time,
            ],
          );
          break;
        case 'QuestionRegistered':
          batch.exec(
            `INSERT INTO hip4.questions (question_id, name, description, fallback_outcome, named_outcomes, venue, deployer, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (question_id) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description,
               fallback_outcome = EXCLUDED.fallback_outcome, named_outcomes = EXCLUDED.named_outcomes,
               venue = EXCLUDED.venue, deployer = EXCLUDED.deployer, updated_at = EXCLUDED.updated_at
             WHERE hip4.questions.updated_at <= EXCLUDED.updated_at`,
            [
              int(b, 'question_id'),
              str(b, 'name'),
              str(b, 'description'),
              int(b, 'fallback_outcome'),
              intArray(b.named_outcomes, 'named_outcomes'),
              str(b, 'venue'),
              optAddressText(b, 'deployer'),
              time,
            ],
          );
          break;
        case 'OutcomeRegistered':
          batch.exec(
            `INSERT INTO hip4.outcomes (outcome_id, name, description, side_specs, question_id, quote_token, block_time, venue, deployer)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
             ON CONFLICT (outcome_id) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description,
               side_specs = EXCLUDED.side_specs, question_id = EXCLUDED.question_id, quote_token = EXCLUDED.quote_token,
               venue = EXCLUDED.venue, deployer = EXCLUDED.deployer`,
            [
              int(b, 'outcome_id'),
              str(b, 'name'),
              str(b, 'description'),
              JSON.stringify(array(b.side_specs, 'side_specs')),
              optInt(b, 'question_id'),
              str(b, 'quote_token'),
              time,
              str(b, 'venue'),
              optAddressText(b, 'deployer'),
            ],
          );
          break;
        case 'OutcomeSettled': {
          const row = {
            outcome_id: int(b, 'outcome_id'),
            time,
            block_number: ctx.blockNumber,
            settle_fraction: dec(b, 'settle_fraction'),
            details: optStr(b, 'details'),
          };
          batch.add(hip4SettlementsTable, row);
          batch.exec(
            'UPDATE hip4.outcomes SET settled = true, settle_fraction = $2, settled_at = $3 WHERE outcome_id = $1',
            [row.outcome_id, row.settle_fraction, time],
          );
          break;
        }
        case 'QuestionSettled':
          batch.exec('UPDATE hip4.questions SET settled_named_outcomes = $2, updated_at = $3 WHERE question_id = $1', [
            int(b, 'question_id'),
            intArray(b.settled_named_outcomes, 'settled_named_outcomes'),
            time,
          ]);
          break;
        default:
          throw new FieldError(`inner: unknown HIP-4 registry event ${kind}`);
      }
      batch.publish('hip4Registry', { block_number: ctx.blockNumber, time, kind, data: b });
    }
  },
};

export const evmBlocksLoader: StreamLoader = {
  stream: 'evm_blocks_by_block',
  loadBlock(_ctx, events, batch) {
    for (const event of events) {
      const e = object(event, 'event');
      const number = int(e, 'number');
      const time = int(e, 'time');
      const txs = array(e.txs, 'txs');
      const block = { number, hash: str(e, 'hash'), time, tx_count: txs.length, gas_used: int(e, 'gasUsed') };
      batch.add(evmBlocksTable, block);
      batch.publish('evmBlocks', block);
      for (const t of txs) {
        const tx = object(t, 'tx');
        const to = optStr(tx, 'to');
        batch.add(evmTransactionsTable, {
          block_number: number,
          tx_index: int(tx, 'index'),
          hash: str(tx, 'hash'),
          time,
          tx_type: int(tx, 'type'),
          from_addr: address(tx, 'from'),
          to_addr: to === null ? null : address(tx, 'to'),
          value_wei: dec(tx, 'value'),
          gas_limit: int(tx, 'gasLimit'),
          gas_used: int(tx, 'gasUsed'),
          success: bool(tx, 'success'),
          input_len: int(tx, 'inputLen'),
          is_system: bool(tx, 'isSystem'),
        });
      }
      for (const tk of e.tokens === undefined ? [] : array(e.tokens, 'tokens')) {
        const token = object(tk, 'token');
        batch.exec(
          `INSERT INTO evm.tokens (address, symbol, decimals, standard) VALUES ($1, $2, $3, $4)
           ON CONFLICT (address) DO UPDATE SET symbol = EXCLUDED.symbol, decimals = EXCLUDED.decimals, standard = EXCLUDED.standard`,
          [address(token, 'address'), str(token, 'symbol'), int(token, 'decimals'), str(token, 'standard')],
        );
      }
      // Holder balances move with each transfer; one statement per block applies the block's net changes.
      const holders = new Map<string, bigint>();
      const credit = (token: string, who: string, amount: bigint) => {
        // The zero and system addresses mint and burn: no balance is kept for them.
        if (mintsOrBurns(who)) return;
        const key = `${token} ${who}`;
        holders.set(key, (holders.get(key) ?? 0n) + amount);
      };
      for (const tr of array(e.transfers, 'transfers')) {
        const x = object(tr, 'transfer');
        const row = {
          block_number: number,
          log_index: int(x, 'logIndex'),
          tx_hash: str(x, 'txHash'),
          time,
          token: address(x, 'token'),
          from_addr: address(x, 'from'),
          to_addr: address(x, 'to'),
          value_raw: dec(x, 'value'),
          token_id: optDec(x, 'tokenId'),
        };
        if (!/^\d+$/.test(row.value_raw)) throw new FieldError('value: must be a non-negative integer');
        batch.add(tokenTransfersTable, row);
        batch.publish('evmTransfers', row);
        credit(row.token, row.from_addr, -BigInt(row.value_raw));
        credit(row.token, row.to_addr, BigInt(row.value_raw));
      }
      if (holders.size) {
        const tokens: string[] = [];
        const addrs: string[] = [];
        const deltas: string[] = [];
        // In key order: two lanes upserting the same holders then take their row locks in one order.
        for (const [key, delta] of [...holders].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
          const [token, who] = key.split(' ') as [string, string];
          tokens.push(token);
          addrs.push(who);
          deltas.push(delta.toString());
        }
        batch.exec(
          `INSERT INTO evm.token_holders AS h (token, address, balance_raw, updated_block)
           SELECT t, a, d::numeric, $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS u(t, a, d)
           ON CONFLICT (token, address) DO UPDATE SET balance_raw = h.balance_raw + EXCLUDED.balance_raw,
             updated_block = greatest(h.updated_block, EXCLUDED.updated_block)`,
          [tokens, addrs, deltas, number],
        );
      }
      for (const bt of array(e.backstopTransfers, 'backstopTransfers')) {
        const x = object(bt, 'backstopTransfer');
        const row = {
          block_number: number,
          time,
          tx_hash: str(x, 'txHash'),
          dex_id: str(x, 'dex'),
          is_deposit: bool(x, 'isDeposit'),
          signer: address(x, 'signer'),
          amount: dec(x, 'amount'),
        };
        batch.add(backstopTransfersTable, row);
        batch.publish('backstopTransfers', row);
      }
    }
  },
};
