// Parquet files read back by hyparquet (its codecs from hyparquet-compressors), a reader independent of the writer (DuckDB): every row as an object, each
// DECIMAL as its exact digits (hyparquet turns decimals into floats, so their annotation is taken off the schema
// before reading and the stored integer is scaled here), times as epoch ms, JSON parsed.
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

type SchemaElement = Awaited<ReturnType<typeof parquetMetadataAsync>>['schema'][number];

export interface ParquetColumn {
  name: string;
  /** The physical type and its annotation as the file states them. */
  type: string | undefined;
  converted: string | undefined;
  logical: unknown;
}

/** `12.500` → `12.5`, `-0.0` → `0`, `7.` → `7`: a decimal's digits without trailing zeros, to compare by value. */
export function plainDecimal(text: string): string {
  let t = text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
  if (/^-0*$/.test(t)) t = '0';
  return t;
}

/** A big-endian two's-complement integer (a FIXED_LEN_BYTE_ARRAY decimal), or an INT32/INT64 one, as digits/10^scale. */
function decimalText(raw: unknown, scale: number): string {
  let unscaled: bigint;
  if (raw instanceof Uint8Array) {
    unscaled = 0n;
    for (const byte of raw) unscaled = unscaled * 256n + BigInt(byte);
    if (raw.length && (raw[0] as number) >= 128) unscaled -= 1n << BigInt(raw.length * 8);
  } else {
    unscaled = BigInt(raw as number | bigint);
  }
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const text = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return plainDecimal(`${negative ? '-' : ''}${text}`);
}

/** Rewrites decoded values: decimals (by the scale of each element found below) to text, Dates to epoch ms. */
function normalize(value: unknown, element: SchemaNode): unknown {
  if (value === null || value === undefined) return null;
  if (element.scale !== undefined) return decimalText(value, element.scale);
  if (value instanceof Date) return value.getTime();
  if (Array.isArray(value)) return value.map((v) => normalize(v, element.item ?? element));
  if (typeof value === 'object' && element.fields) {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, normalize(v, element.fields?.[k] ?? {})]),
    );
  }
  return typeof value === 'bigint' ? value.toString() : value;
}

interface SchemaNode {
  scale?: number;
  item?: SchemaNode;
  fields?: Record<string, SchemaNode>;
}

/** The schema tree (flattened in the footer, depth first) as nodes: decimals' scales, lists' items, structs' fields. */
function schemaTree(elements: SchemaElement[]): { columns: Record<string, SchemaNode>; top: ParquetColumn[] } {
  let i = 0;
  const node = (): [string, SchemaNode, SchemaElement] => {
    const element = elements[i++] as SchemaElement;
    const children: [string, SchemaNode, SchemaElement][] = [];
    for (let c = 0; c < (element.num_children ?? 0); c++) children.push(node());
    const out: SchemaNode = {};
    if (element.converted_type === 'DECIMAL') out.scale = element.scale ?? 0;
    if (element.converted_type === 'LIST') {
      // LIST → repeated `list` → `element`.
      const inner = children[0]?.[1];
      out.item = inner?.fields?.element ?? inner;
    } else if (children.length) {
      out.fields = Object.fromEntries(children.map(([name, n]) => [name, n]));
    }
    return [element.name, out, element];
  };
  const root = elements[i++] as SchemaElement;
  const columns: Record<string, SchemaNode> = {};
  const top: ParquetColumn[] = [];
  for (let c = 0; c < (root.num_children ?? 0); c++) {
    const [name, n, element] = node();
    columns[name] = n;
    top.push({ name, type: element.type, converted: element.converted_type, logical: element.logical_type });
  }
  return { columns, top };
}

/** Every row of `file`, as read by hyparquet, normalized (above); and the file's top-level columns. */
export async function readParquet(
  file: string,
): Promise<{ rows: Record<string, unknown>[]; columns: ParquetColumn[] }> {
  const buffer = await asyncBufferFromFile(file);
  const metadata = await parquetMetadataAsync(buffer);
  const { columns, top } = schemaTree(metadata.schema);
  // Decimals read as the integers they are stored as.
  const raw = {
    ...metadata,
    schema: metadata.schema.map((e) => {
      if (e.converted_type !== 'DECIMAL') return e;
      const { converted_type: _c, logical_type: _l, ...plain } = e;
      return plain;
    }),
  };
  const rows = (await parquetReadObjects({ file: buffer, metadata: raw, compressors })) as Record<string, unknown>[];
  const normalized = rows.map((row) =>
    Object.fromEntries(Object.entries(row).map(([k, v]) => [k, normalize(v, columns[k] ?? {})])),
  );
  return { rows: normalized, columns: top };
}
