// /export: a dataset's UTC day as a Parquet file (GET /export/<dataset>/<day>.parquet), written by export/ into the
// server's export directory (EXPORT_DIR) as `npm run export` writes it, then streamed from disk; and that directory's
// manifest (GET /export/manifest.json). A day is charged per row (access/costs.ts exportCredits), counted before it
// runs, after its dataset and day passed; keys as every data endpoint (app.ts).
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { exportCredits } from '../access/costs.ts';
import { DATASET_NAMES, datasetOf, dayStart } from '../export/datasets.ts';
import { countDayRows, exportDay } from '../export/index.ts';
import { readManifest } from '../export/manifest.ts';
import { loadConfig } from '../platform/config.ts';

export interface ExportRouteOptions {
  /** The service's database: its rows are counted through it, and its URL gives an export its own connection. */
  pool?: pg.Pool;
  /** The export directory (default: the configuration's, EXPORT_DIR). */
  dir?: string;
}

const PARQUET_TYPE = 'application/vnd.apache.parquet';

/** A manifest entry's schema, for the document (export/manifest.ts ManifestEntry). */
const MANIFEST_ENTRY = {
  type: 'object',
  properties: {
    dataset: { type: 'string', enum: [...DATASET_NAMES] },
    day: { type: 'string', description: 'the UTC day, YYYY-MM-DD' },
    path: {
      type: 'string',
      description: '`<dataset>/<day>.parquet`, relative to the export directory and to /export/',
    },
    rows: { type: 'integer', minimum: 0 },
    bytes: { type: 'integer', minimum: 0 },
    sha256: { type: 'string', description: "of the file's bytes, hex" },
    schemaVersion: { type: 'integer', description: "the dataset's columns' version" },
    positions: {
      type: 'object',
      description:
        "the first and last row's position: `key`'s values joined by `:`, times in epoch ms; null without rows",
      properties: {
        key: { type: 'array', items: { type: 'string' } },
        first: { type: ['string', 'null'] },
        last: { type: ['string', 'null'] },
      },
      required: ['key', 'first', 'last'],
    },
    exportedAt: { type: 'string', description: 'when the file was written, ISO 8601 UTC' },
  },
  required: ['dataset', 'day', 'path', 'rows', 'bytes', 'sha256', 'schemaVersion', 'positions', 'exportedAt'],
};

/** The dataset and day of `/export/<dataset>/<day>.parquet`, checked: a FieldError (400) naming the one refused. */
function dayOf(params: unknown): { dataset: string; day: string } {
  const { dataset, day } = params as { dataset: string; day: string };
  datasetOf(dataset);
  dayStart(day);
  return { dataset, day };
}

export const exportRoutes: FastifyPluginAsync<ExportRouteOptions> = async (app, opts) => {
  const pool = opts.pool;
  // Read when asked for: building the app reads no configuration.
  const dirOf = () => opts.dir ?? loadConfig().exportDir;
  /** Each admitted request's day and its rows counted for the charge. */
  const asked = new WeakMap<FastifyRequest, { dataset: string; day: string; rows: number }>();

  app.get(
    '/manifest.json',
    {
      schema: {
        summary: 'The export directory manifest',
        description:
          'Every file exported into the server export directory (by GET /export/{dataset}/{day}.parquet or `npm run ' +
          'export --out` the same directory): dataset, day, path, rows, bytes, sha256, schemaVersion and the positions ' +
          'covered. 1 credit.',
        answer: {
          body: {
            type: 'object',
            properties: { files: { type: 'array', items: MANIFEST_ENTRY } },
            required: ['files'],
          },
        },
      },
    },
    async (_req, reply) => reply.type('application/json').send(await readManifest(dirOf())),
  );

  app.get(
    '/:dataset/:day.parquet',
    {
      schema: {
        summary: "A dataset's UTC day as Parquet",
        description:
          `Exports the day of one dataset (${DATASET_NAMES.join(', ')}) from the store into the server export ` +
          'directory, updates its manifest entry and streams the file (application/vnd.apache.parquet): typed ' +
          'columns, decimals as DECIMAL(38,18), times as UTC timestamps. A day with no rows is a file of 0 rows. ' +
          'Costs 1 credit per 2 000 rows of the day, counted before the export (at least 1). Columns: docs/export.md.',
        params: {
          type: 'object',
          properties: {
            dataset: { type: 'string', enum: [...DATASET_NAMES], description: 'the dataset' },
            day: { type: 'string', description: 'the UTC day, YYYY-MM-DD (the path ends in `.parquet`)' },
          },
          required: ['dataset', 'day'],
        },
        answer: {
          contentType: PARQUET_TYPE,
          body: {
            type: 'string',
            format: 'binary',
            description: 'the Parquet file, with X-Export-Rows and X-Export-Sha256',
          },
        },
      },
      config: { credits: (req: FastifyRequest) => exportCredits(asked.get(req)?.rows ?? 0) },
      // Before the charge (the app's preHandler): a refused dataset or day costs nothing, and the day's rows are
      // what is charged.
      preValidation: async (req: FastifyRequest) => {
        const { dataset, day } = dayOf(req.params);
        if (!pool) throw new Error('export: no database');
        asked.set(req, { dataset, day, rows: await countDayRows(pool, dataset, day) });
      },
    },
    async (req, reply) => {
      const { dataset, day } = asked.get(req) ?? dayOf(req.params);
      const databaseUrl = (pool?.options as { connectionString?: string } | undefined)?.connectionString;
      if (!databaseUrl) throw new Error('export: the database has no URL');
      const dir = dirOf();
      const entry = await exportDay({ databaseUrl, dataset, day, dir });
      return reply
        .type(PARQUET_TYPE)
        .header('content-length', String(entry.bytes))
        .header('content-disposition', `attachment; filename="${dataset}-${day}.parquet"`)
        .header('x-export-rows', String(entry.rows))
        .header('x-export-sha256', entry.sha256)
        .send(fs.createReadStream(path.join(dir, entry.path)));
    },
  );
};
