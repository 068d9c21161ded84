// Seeded PRNG (sfc32, seeded through splitmix32) and the random helpers the simulator draws from. Every random
// choice goes through an Rng so that one seed reproduces the same files byte for byte.

const HEX_BYTE: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const TWO_POW_32 = 4294967296;

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spareNormal = Number.NaN;

  /** `stream` derives independent sequences from one seed, so subsystems don't perturb each other. */
  constructor(seed: number, stream = 0) {
    let s = (seed >>> 0) ^ Math.floor(seed / TWO_POW_32) ^ Math.imul(stream + 1, 0x9e3779b9);
    const splitmix = (): number => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = splitmix();
    this.b = splitmix();
    this.c = splitmix();
    this.d = splitmix();
    for (let i = 0; i < 16; i++) this.uint32();
  }

  uint32(): number {
    const t0 = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    const c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    const t = (t0 + this.d) | 0;
    this.c = (c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / TWO_POW_32;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  range(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Standard normal (Box–Muller, the spare value is kept for the next call). */
  normal(): number {
    if (!Number.isNaN(this.spareNormal)) {
      const v = this.spareNormal;
      this.spareNormal = Number.NaN;
      return v;
    }
    let u = this.next();
    while (u === 0) u = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    const theta = 2 * Math.PI * this.next();
    this.spareNormal = r * Math.sin(theta);
    return r * Math.cos(theta);
  }

  /** exp(N(mu, sigma)): sizes and balances are heavy-tailed. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  poisson(lambda: number): number {
    if (lambda <= 0) return 0;
    if (lambda > 40) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * this.normal()));
    const limit = Math.exp(-lambda);
    let k = 0;
    let p = this.next();
    while (p > limit) {
      k++;
      p *= this.next();
    }
    return k;
  }

  /** Index drawn from cumulative weights (ascending, last = total). */
  weighted(cumulative: ArrayLike<number>): number {
    const x = this.next() * cumulative[cumulative.length - 1]!;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** `bytes` random bytes as lowercase hex (no prefix). */
  hex(bytes: number): string {
    let out = '';
    for (let i = 0; i < bytes; i += 4) {
      const v = this.uint32();
      out += HEX_BYTE[v & 0xff]! + HEX_BYTE[(v >>> 8) & 0xff]! + HEX_BYTE[(v >>> 16) & 0xff]! + HEX_BYTE[v >>> 24]!;
    }
    return bytes % 4 === 0 ? out : out.slice(0, bytes * 2);
  }

  address(): string {
    return `0x${this.hex(20)}`;
  }

  /** L1 / EVM transaction hash: 0x + 64 hex. */
  txHash(): string {
    return `0x${this.hex(32)}`;
  }

  /** Client order id: 0x + 32 hex. */
  cloid(): string {
    return `0x${this.hex(16)}`;
  }

  /** A 50-bit trade id, like the exchange's hash-derived tids. */
  tid(): number {
    return (this.uint32() & 0x3ffff) * TWO_POW_32 + this.uint32();
  }
}
