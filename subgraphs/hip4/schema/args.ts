// Arguments shared by the hip4 root and entity fields: paging (the service's caps and defaults) and time windows.
import { FieldError } from '../../../platform/fields.ts';
import { builder } from '../builder.ts';

/** `limit` (1 to `max`, default `defaultLimit`) and `offset` (≥ 0) as the service pages them. */
export const pageArgs = (defaultLimit: number, max: number) =>
  builder.args((t) => ({
    limit: t.int({ required: true, defaultValue: defaultLimit, description: `1 to ${max}` }),
    offset: t.int({ required: true, defaultValue: 0 }),
  }));

/** `start`/`end`: an inclusive window in epoch ms. */
export const windowArgs = () =>
  builder.args((t) => ({ start: t.field({ type: 'Timestamp' }), end: t.field({ type: 'Timestamp' }) }));

/** A nullable GraphQL argument as the service's optional input. */
export const opt = <T>(v: T | null | undefined): T | undefined => v ?? undefined;

/**
 * Runs a service call whose input refusal names the service's parameter `from` (the REST name, `coin`), naming the
 * GraphQL argument `arg` (`coins`) instead.
 */
export async function renamedInput<T>(from: string, arg: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof FieldError && err.message.startsWith(`${from}:`)) {
      throw new FieldError(`${arg}:${err.message.slice(from.length + 1)}`);
    }
    throw err;
  }
}
