// The perp account's cash rule (service/state.ts's header states it): which coins are the perp account's, and what a
// ledger update does to its USDC. The account state's read, ingest's running sums (ingest/formats/) and the analytics
// writer apply this one rule.
import { add, isDecimal, type Ratio, ratio, sub, toDecimal, ZERO } from '../../../platform/decimal.ts';

/** SQL: a coin of the perp account (no spot pair, spot index, outcome or HIP-3 dex). */
export const PERP_COIN = `coin !~ '[/@#:]'`;

/** The same rule in TypeScript. */
export const isPerpCoin = (coin: string): boolean => !/[/@#:]/.test(coin);

export const CASH_TYPES = [
  'deposit',
  'withdraw',
  'internalTransfer',
  'subAccountTransfer',
  'accountClassTransfer',
  'send',
  'vaultCreate',
  'vaultDeposit',
  'vaultWithdraw',
  'vaultDistribution',
  'vaultLeaderCommission',
];

const CASH_TYPE_SET = new Set(CASH_TYPES);

/** Whether a ledger update of this type can move perp USDC. */
export const isCashType = (type: string): boolean => CASH_TYPE_SET.has(type);
const neg = (r: Ratio): Ratio => ({ n: -r.n, d: r.d });

/** What one ledger update did to the perp USDC balance of `user`. */
export function ledgerCash(user: string, type: string, delta: Record<string, unknown>): Ratio {
  const amount = (key: string): Ratio => {
    const v = delta[key];
    return isDecimal(v) ? ratio(v) : ZERO;
  };
  const is = (key: string) => typeof delta[key] === 'string' && (delta[key] as string).toLowerCase() === user;
  switch (type) {
    case 'deposit':
      return amount('usdc');
    case 'withdraw':
      return neg(amount('usdc'));
    case 'internalTransfer':
    case 'subAccountTransfer': {
      let r = ZERO;
      if (is('user')) r = sub(r, add(amount('usdc'), type === 'internalTransfer' ? amount('fee') : ZERO));
      if (is('destination')) r = add(r, amount('usdc'));
      return r;
    }
    case 'accountClassTransfer':
      return delta.toPerp === true ? amount('usdc') : neg(amount('usdc'));
    case 'send': {
      const token = typeof delta.token === 'string' ? delta.token : '';
      if (token !== 'USDC' && !token.startsWith('USDC:')) return ZERO;
      let r = ZERO;
      if (is('user') && (delta.sourceDex ?? '') === '') r = sub(r, amount('amount'));
      if (is('destination') && (delta.destinationDex ?? '') === '') r = add(r, amount('amount'));
      return r;
    }
    case 'vaultCreate':
      return is('vault') ? amount('usdc') : neg(add(amount('usdc'), amount('fee')));
    case 'vaultDeposit':
      return is('vault') ? amount('usdc') : neg(amount('usdc'));
    case 'vaultWithdraw':
      return is('vault') ? neg(amount('netWithdrawnUsd')) : amount('netWithdrawnUsd');
    case 'vaultDistribution':
      return is('vault') ? neg(amount('usdc')) : amount('usdc');
    case 'vaultLeaderCommission':
      return amount('usdc');
    default:
      return ZERO;
  }
}

/**
 * A sum of decimals as exact decimal text: its denominator divides a power of ten, so printing at that many places
 * loses nothing (Postgres adds it to a numeric).
 */
export function exactDecimal(r: Ratio): string {
  let scale = 0;
  while (10n ** BigInt(scale) % r.d !== 0n) scale++;
  return toDecimal(r, scale);
}
