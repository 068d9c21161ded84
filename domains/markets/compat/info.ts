// /info types of the markets domain not yet declared as capabilities (state-capabilities.ts,
// history-capabilities.ts): dataCoverage, in the result envelope.

import { resultEnvelope } from '../../../kit/envelopes.ts';
import { type InfoEntry, json } from '../../../kit/info.ts';
import * as R from '../../../kit/response-schema.ts';
import { NO_INPUT } from '../service/inputs.ts';

export const marketsInfo: Record<string, InfoEntry> = {
  dataCoverage: {
    schema: NO_INPUT.body(),
    async handler(_body, { markets, coverage }) {
      return json(resultEnvelope(await coverage(markets.now())));
    },
    response: R.resultOf(
      R.record({
        region: R.str,
        datasets: R.mapOf(
          R.record({
            start: { type: ['integer', 'null'] },
            latest: { type: ['integer', 'null'] },
            earliest: { type: ['integer', 'null'] },
            delaySeconds: { type: ['number', 'null'] },
          }),
        ),
        backfills: R.list(R.record({ lane: R.str, until: R.int, loadedThrough: R.mapOf(R.int) })),
      }),
    ),
  },
};
