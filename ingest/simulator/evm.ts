// HyperEVM activity: a block every 1 to 2 s with a few transactions — native HYPE transfers, ERC-20 transfers and
// swaps of three tokens, an ERC-721 collection, system (Core→EVM bridge) transactions — and HIP-3 backstop
// principal deposits/withdrawals on several dexes. Token balances are tracked so transfers never spend more than a
// holder has. (agentSendAsset between dexes comes from ledger.ts; backstop liquidation fills from risk.ts.)
import type { BackstopTransfer, EvmBlockEvent, EvmTransfer, EvmTx } from '../../wire/node-lines.ts';
import { HIP3_DEX } from './catalog.ts';
import { toRawUnits } from './decimal.ts';
import type { Exchange } from './exchange.ts';
import { Rng } from './rng.ts';

const EVM_STREAM = 5;
const EVM_EPOCH = Date.UTC(2025, 1, 18);
const HYPE_SYSTEM = '0x2222222222222222222222222222222222222222';
const CORE_WRITER = '0x3333333333333333333333333333333333333333';
const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;
const MAX_NFTS = 600;
/**
 * Dexes whose backstop principal moves: the simulated exchange's HIP-3 dex, and two more whose markets it does not
 * simulate (their principal is recorded; the node lists no such dex, so their backstop has no fills).
 */
const BACKSTOP_DEXES = [HIP3_DEX.name, 'flx', 'vntl'];
/** Chance per block of a principal transfer: one about every minute at 1.5 s blocks. */
const BACKSTOP_CHANCE = 1 / 40;

interface EvmToken {
  address: string;
  symbol: string;
  decimals: number;
  standard: EvmTransfer['standard'];
  /** Core→EVM bridge address that mints it (system transactions), or the zero address (wrap / mint). */
  source: string;
  /** Typical transfer size in whole tokens. */
  typical: number;
  balances: Map<string, bigint>;
  /** Candidate senders; `listed` keeps each address in it at most once. */
  holders: string[];
  listed: Set<string>;
}

export interface EvmOptions {
  seed: number;
  blockIntervalMs: number;
}

const LEAN_EVM_SPACING = 4;

export class EvmChain {
  private readonly x: Exchange;
  private readonly rng: Rng;
  private readonly intervalMs: number;
  private readonly addresses: string[];
  private readonly pool: string;
  private readonly tokens: EvmToken[];
  private readonly nft: EvmToken;
  private readonly nftOwners: string[] = [];
  private readonly registered = new Set<string>();
  private readonly backstopSigners: string[];
  private readonly backstopPrincipal = new Map<string, number>();
  private number = 0;
  private nextAt = Number.NEGATIVE_INFINITY;
  blocks = 0;

  constructor(exchange: Exchange, opts: EvmOptions) {
    this.x = exchange;
    this.rng = new Rng(opts.seed, EVM_STREAM);
    this.intervalMs = opts.blockIntervalMs;
    const evmOnly = Array.from({ length: 40 }, () => this.rng.address());
    this.addresses = [...exchange.traders.slice(0, 160).map((a) => a.address), ...evmOnly];
    this.pool = this.rng.address();
    const erc20 = (address: string, symbol: string, decimals: number, source: string, typical: number): EvmToken => ({
      address,
      symbol,
      decimals,
      standard: 'erc20',
      source,
      typical,
      balances: new Map(),
      holders: [],
      listed: new Set(),
    });
    this.tokens = [
      erc20('0x5555555555555555555555555555555555555555', 'WHYPE', 18, ZERO_ADDRESS, 40),
      erc20('0xb8ce59fc3717ada4c02eadf9682a9e934f625ebb', 'USDT0', 6, systemAddress(268), 1500),
      erc20('0x9fdbda0a5e284c32744d2f17ee5c74b284993463', 'UBTC', 8, systemAddress(197), 0.02),
    ];
    this.nft = { ...erc20(this.rng.address(), 'HYPIO', 0, ZERO_ADDRESS, 1), standard: 'erc721' };
    this.backstopSigners = [exchange.hip3Deployer, exchange.hip3SubDeployer];
  }

  /**
   * Produces a HyperEVM block when one is due at the current L1 block time; in a lean history (`lean`) blocks are
   * LEAN_EVM_SPACING times as far apart (the EVM stream was more than half of a lean week's bytes).
   */
  step(out: EvmBlockEvent[], lean = false): void {
    const now = this.x.now;
    if (this.nextAt === Number.NEGATIVE_INFINITY) {
      this.number = 1_000_000 + Math.floor((now - EVM_EPOCH) / this.intervalMs);
      this.nextAt = now;
    }
    if (now < this.nextAt) return;
    // Blocks 2/3 to 4/3 of the interval apart: 1 to 2 s at the default 1.5 s.
    this.nextAt = now + this.intervalMs * (lean ? LEAN_EVM_SPACING : 1) * this.rng.range(2 / 3, 4 / 3);
    out.push(this.block(now));
    this.blocks++;
  }

  private block(time: number): EvmBlockEvent {
    const rng = this.rng;
    const block: EvmBlockEvent = {
      number: this.number++,
      hash: rng.txHash(),
      time,
      gasUsed: 0,
      txs: [],
      transfers: [],
      backstopTransfers: [],
    };
    const newTokens: NonNullable<EvmBlockEvent['tokens']> = [];
    if (rng.chance(0.1)) this.systemTx(block, newTokens);
    const count = rng.poisson(1.0);
    for (let i = 0; i < count; i++) {
      const r = rng.next();
      if (r < 0.45) this.erc20Transfer(block, newTokens);
      else if (r < 0.65) this.nativeTransfer(block);
      else if (r < 0.85) this.swap(block, newTokens);
      else if (r < 0.93) this.nftTransfer(block, newTokens);
      else this.contractCall(block);
    }
    if (rng.chance(BACKSTOP_CHANCE)) this.backstop(block);
    for (const tx of block.txs) block.gasUsed += tx.gasUsed;
    if (newTokens.length > 0) block.tokens = newTokens;
    return block;
  }

  private tx(
    block: EvmBlockEvent,
    from: string,
    to: string | null,
    value: bigint,
    gasUsed: number,
    inputLen: number,
    isSystem = false,
  ): EvmTx {
    const rng = this.rng;
    const success = isSystem || rng.chance(0.96);
    const tx: EvmTx = {
      hash: rng.txHash(),
      index: block.txs.length,
      type: isSystem ? 0 : rng.chance(0.85) ? 2 : 0,
      from,
      to,
      value: value.toString(),
      gasLimit: isSystem ? 0 : Math.round(gasUsed * rng.range(1.1, 1.6)),
      gasUsed: isSystem ? 0 : success ? gasUsed : Math.round(gasUsed * 0.6),
      success,
      inputLen,
      isSystem,
    };
    block.txs.push(tx);
    return tx;
  }

  private transfer(
    block: EvmBlockEvent,
    tx: EvmTx,
    token: EvmToken,
    from: string,
    to: string,
    raw: bigint,
    newTokens: NonNullable<EvmBlockEvent['tokens']>,
    tokenId: string | null = null,
  ): void {
    if (!tx.success) return;
    if (!this.registered.has(token.address)) {
      this.registered.add(token.address);
      newTokens.push({
        address: token.address,
        symbol: token.symbol,
        decimals: token.decimals,
        standard: token.standard,
      });
    }
    if (from !== token.source && from !== ZERO_ADDRESS) credit(token, from, -raw);
    credit(token, to, raw);
    block.transfers.push({
      txHash: tx.hash,
      logIndex: block.transfers.length,
      token: token.address,
      standard: token.standard,
      from,
      to,
      value: raw.toString(),
      tokenId,
    });
  }

  /** Core→EVM bridging: native HYPE from the system address, or a token minted by its bridge address. */
  private systemTx(block: EvmBlockEvent, newTokens: NonNullable<EvmBlockEvent['tokens']>): void {
    const rng = this.rng;
    const to = rng.pick(this.addresses);
    if (rng.chance(0.4)) {
      this.tx(block, HYPE_SYSTEM, to, toRawUnits(rng.logNormal(20, 1), 18), 0, 0, true);
      return;
    }
    const token = this.tokens[1 + rng.int(2)]!;
    const tx = this.tx(block, token.source, token.address, 0n, 0, 68, true);
    this.transfer(
      block,
      tx,
      token,
      token.source,
      to,
      toRawUnits(rng.logNormal(token.typical * 3, 1), token.decimals),
      newTokens,
    );
  }

  private erc20Transfer(block: EvmBlockEvent, newTokens: NonNullable<EvmBlockEvent['tokens']>): void {
    const rng = this.rng;
    const token = rng.pick(this.tokens);
    const from = this.holderOf(token);
    const to = rng.pick(this.addresses);
    if (!from) {
      // Nobody holds it yet: wrapping (WHYPE) or bridging creates supply.
      const tx = this.tx(
        block,
        to,
        token.address,
        token.source === ZERO_ADDRESS ? toRawUnits(token.typical, 18) : 0n,
        45_000,
        4,
      );
      this.transfer(
        block,
        tx,
        token,
        token.source,
        to,
        toRawUnits(rng.logNormal(token.typical * 2, 1), token.decimals),
        newTokens,
      );
      return;
    }
    const balance = token.balances.get(from) ?? 0n;
    const raw = (balance * BigInt(1 + rng.int(100))) / 100n;
    const tx = this.tx(block, from, token.address, 0n, 35_000 + rng.int(30_000), 68);
    this.transfer(block, tx, token, from, to, raw, newTokens);
  }

  private swap(block: EvmBlockEvent, newTokens: NonNullable<EvmBlockEvent['tokens']>): void {
    const rng = this.rng;
    const sell = rng.pick(this.tokens);
    const buy = this.tokens[(this.tokens.indexOf(sell) + 1 + rng.int(this.tokens.length - 1)) % this.tokens.length]!;
    const trader = this.holderOf(sell);
    const poolHas = buy.balances.get(this.pool) ?? 0n;
    if (!trader || poolHas === 0n) {
      // Liquidity provision: the pool receives freshly bridged tokens.
      const tx = this.tx(block, rng.pick(this.addresses), this.pool, 0n, 180_000 + rng.int(60_000), 260);
      this.transfer(block, tx, buy, buy.source, this.pool, toRawUnits(buy.typical * 200, buy.decimals), newTokens);
      return;
    }
    const tx = this.tx(block, trader, this.pool, 0n, 120_000 + rng.int(200_000), 196 + 32 * rng.int(10));
    const paid = ((sell.balances.get(trader) ?? 0n) * BigInt(1 + rng.int(60))) / 100n;
    const got = (poolHas * BigInt(1 + rng.int(5))) / 1000n;
    this.transfer(block, tx, sell, trader, this.pool, paid, newTokens);
    this.transfer(block, tx, buy, this.pool, trader, got, newTokens);
  }

  private nativeTransfer(block: EvmBlockEvent): void {
    const rng = this.rng;
    this.tx(
      block,
      rng.pick(this.addresses),
      rng.pick(this.addresses),
      toRawUnits(rng.logNormal(5, 1.5), 18),
      21_000,
      0,
    );
  }

  private contractCall(block: EvmBlockEvent): void {
    const rng = this.rng;
    const deploy = rng.chance(0.1);
    this.tx(
      block,
      rng.pick(this.addresses),
      deploy ? null : rng.pick([this.pool, CORE_WRITER, this.nft.address]),
      0n,
      deploy ? 900_000 + rng.int(2_000_000) : 60_000 + rng.int(150_000),
      deploy ? 4000 + rng.int(20000) : 36 + 32 * rng.int(8),
    );
  }

  private nftTransfer(block: EvmBlockEvent, newTokens: NonNullable<EvmBlockEvent['tokens']>): void {
    const rng = this.rng;
    const to = rng.pick(this.addresses);
    if (this.nftOwners.length < MAX_NFTS && (this.nftOwners.length === 0 || rng.chance(0.3))) {
      const tokenId = this.nftOwners.length + 1;
      const tx = this.tx(block, to, this.nft.address, toRawUnits(0.5, 18), 95_000, 36);
      if (tx.success) this.nftOwners.push(to);
      this.transfer(block, tx, this.nft, ZERO_ADDRESS, to, 1n, newTokens, String(tokenId));
      return;
    }
    const index = rng.int(this.nftOwners.length);
    const owner = this.nftOwners[index]!;
    const tx = this.tx(block, owner, this.nft.address, 0n, 60_000, 100);
    if (tx.success) this.nftOwners[index] = to;
    this.transfer(block, tx, this.nft, owner, to, 1n, newTokens, String(index + 1));
  }

  /** A HIP-3 deployer adds or withdraws backstop principal through CoreWriter; a withdrawal never overdraws. */
  private backstop(block: EvmBlockEvent): void {
    const rng = this.rng;
    const dex = rng.pick(BACKSTOP_DEXES);
    const signer = rng.pick(this.backstopSigners);
    const amount = Math.round(rng.logNormal(25_000, 0.8));
    const principal = this.backstopPrincipal.get(dex) ?? 0;
    const isDeposit = principal < amount * 2 || rng.chance(0.7);
    const tx = this.tx(block, signer, CORE_WRITER, 0n, 48_000, 164);
    if (!tx.success) return;
    this.backstopPrincipal.set(dex, principal + (isDeposit ? amount : -amount));
    const transfer: BackstopTransfer = {
      txHash: tx.hash,
      dex,
      isDeposit,
      signer,
      amount: `${amount}.0`,
    };
    block.backstopTransfers.push(transfer);
  }

  private holderOf(token: EvmToken): string | null {
    for (let attempt = 0; attempt < 4 && token.holders.length > 0; attempt++) {
      const at = this.rng.int(token.holders.length);
      const holder = token.holders[at]!;
      if ((token.balances.get(holder) ?? 0n) > 0n) return holder;
      // Drop holders that ran dry so the list stays short.
      token.holders[at] = token.holders[token.holders.length - 1]!;
      token.holders.pop();
      token.listed.delete(holder);
    }
    return null;
  }
}

/** The Core→EVM bridge address of spot token `index`: 0x20 followed by the index. */
function systemAddress(index: number): string {
  return `0x20${index.toString(16).padStart(38, '0')}`;
}

function credit(token: EvmToken, address: string, delta: bigint): void {
  const before = token.balances.get(address) ?? 0n;
  const after = before + delta;
  if (after === 0n) token.balances.delete(address);
  else token.balances.set(address, after);
  if (after > 0n && !token.listed.has(address)) {
    token.listed.add(address);
    token.holders.push(address);
  }
}
