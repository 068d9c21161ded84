// Non-trading balance movements written as misc `LedgerUpdate` events: deposits, withdrawals, sends between
// dexes, spot transfers, internal transfers, perp↔spot class transfers and vault deposits. Balances move too.
import type { LedgerDelta } from '../../wire/node-lines.ts';
import type { Account } from './account.ts';
import { HIP3_DEX, USDC_TOKEN } from './catalog.ts';
import { fmtNum } from './decimal.ts';
import type { Exchange } from './exchange.ts';

const SEND_TOKENS = [
  { token: 1, name: 'PURR' },
  { token: 150, name: 'HYPE' },
  { token: 0, name: 'USDC' },
];

export class LedgerActivity {
  private readonly x: Exchange;

  constructor(exchange: Exchange) {
    this.x = exchange;
  }

  act(count: number): void {
    for (let i = 0; i < count; i++) this.once();
  }

  private once(): void {
    const x = this.x;
    const rng = x.rng;
    // The mainnet profile's traders exist once they have traded.
    if (x.traders.length === 0) return;
    const user = x.traders[rng.int(x.traders.length)]!;
    const other = x.traders[rng.int(x.traders.length)]!;
    const r = rng.next();
    // Only what margin does not hold can leave the perp account.
    const perp = user.withdrawable('');
    if (r < 0.28 || perp < 20) {
      const usdc = round2(rng.logNormal(2000, 1.3));
      user.addUsdc('', usdc);
      this.emit([user], { type: 'deposit', usdc: fmtNum(usdc, 6) });
    } else if (r < 0.42) {
      const usdc = round2(perp * rng.range(0.1, 0.6));
      user.addUsdc('', -usdc);
      this.emit([user], { type: 'withdraw', usdc: fmtNum(usdc, 6), nonce: x.now, fee: '1.0' });
    } else if (r < 0.57) {
      this.send(user, other === user ? user : other);
    } else if (r < 0.67) {
      this.spotTransfer(user, other);
    } else if (r < 0.75 && other !== user) {
      const usdc = round2(perp * rng.range(0.05, 0.3));
      user.addUsdc('', -usdc);
      other.addUsdc('', usdc);
      this.emit([user, other], {
        type: 'internalTransfer',
        usdc: fmtNum(usdc, 6),
        user: user.address,
        destination: other.address,
        fee: '0.0',
      });
    } else if (r < 0.95) {
      const toPerp = rng.chance(0.5);
      const from = toPerp ? user.spotBalance(USDC_TOKEN) : perp;
      const usdc = round2(from * rng.range(0.05, 0.5));
      if (usdc < 1) return;
      user.addUsdc('', toPerp ? usdc : -usdc);
      user.holding(USDC_TOKEN).total += toPerp ? -usdc : usdc;
      this.emit([user], { type: 'accountClassTransfer', usdc: fmtNum(usdc, 6), toPerp });
    } else {
      const usdc = round2(perp * rng.range(0.05, 0.3));
      user.addUsdc('', -usdc);
      x.hlp.addUsdc('', usdc);
      this.emit([user], { type: 'vaultDeposit', vault: x.hlp.address, usdc: fmtNum(usdc, 6) });
    }
  }

  /** `send`: USDC between perp dexes / spot, to oneself or someone else. */
  private send(user: Account, destination: Account): void {
    const rng = this.x.rng;
    const dexes = ['', 'spot', ...this.x.hip3DexNames];
    const sourceDex = rng.pick(dexes);
    let destinationDex = rng.pick(dexes);
    if (destination === user && destinationDex === sourceDex) destinationDex = sourceDex === '' ? HIP3_DEX.name : '';
    const available = sourceDex === 'spot' ? user.spotBalance(USDC_TOKEN) : user.withdrawable(sourceDex);
    const amount = round2(available * rng.range(0.05, 0.4));
    if (amount < 1) return;
    if (sourceDex === 'spot') user.holding(USDC_TOKEN).total -= amount;
    else user.addUsdc(sourceDex, -amount);
    if (destinationDex === 'spot') destination.holding(USDC_TOKEN).total += amount;
    else destination.addUsdc(destinationDex, amount);
    const users = destination === user ? [user] : [user, destination];
    this.emit(users, {
      type: 'send',
      user: user.address,
      destination: destination.address,
      sourceDex,
      destinationDex,
      token: 'USDC',
      amount: fmtNum(amount, 6),
      usdcValue: fmtNum(amount, 6),
      fee: '0.0',
      nativeTokenFee: '0.0',
      nonce: this.x.now,
      feeToken: '',
    });
  }

  private spotTransfer(user: Account, destination: Account): void {
    if (destination === user) return;
    const x = this.x;
    const pick = x.rng.pick(SEND_TOKENS);
    const held = user.spotBalance(pick.token);
    const amount = pick.token === 1 ? Math.floor(held * x.rng.range(0.1, 0.5)) : round2(held * x.rng.range(0.1, 0.5));
    if (amount <= 0) return;
    const price = pick.token === USDC_TOKEN ? 1 : (x.spotMarkets.find((m) => m.baseToken === pick.token)?.fair ?? 1);
    user.holding(pick.token).total -= amount;
    destination.holding(pick.token).total += amount;
    this.emit([user, destination], {
      type: 'spotTransfer',
      token: pick.name,
      amount: fmtNum(amount, 8),
      usdcValue: fmtNum(amount * price, 6),
      user: user.address,
      destination: destination.address,
      fee: '0.0',
      nativeTokenFee: '0.0',
      nonce: x.now,
      feeToken: '',
    });
  }

  private emit(users: Account[], delta: LedgerDelta): void {
    const x = this.x;
    x.ev.misc.push({
      time: x.ev.iso,
      hash: x.rng.txHash(),
      inner: { LedgerUpdate: { users: users.map((u) => u.address), delta } },
    });
  }
}

function round2(value: number): number {
  return Math.max(0, Math.round(value * 100) / 100);
}
