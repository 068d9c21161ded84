// The router in the test's own thread, for stacks whose tests are about what the servers answer, not where the
// router runs: router/thread.ts's thread loads the gateway anew for each stack (~4 s of CPU, most of a stack's start),
// while here it comes from the modules the test process loaded once. The same router (router/server.ts), asking the
// same Authenticator and answering this process's subgraphs without a socket as the thread does.
import { performance } from 'node:perf_hooks';
import { tracing } from '../platform/tracing.ts';
import { startRouter } from '../router/server.ts';
import type { LocalSubgraphAnswers, RouterThread, RouterThreadOptions } from '../router/thread.ts';

export function openRouterHere(opts: RouterThreadOptions = {}): RouterThread {
  let router: Awaited<ReturnType<typeof startRouter>> | null = null;
  let answeredInProcess = 0;
  return {
    async listen(listen, answers: LocalSubgraphAnswers = {}) {
      // As the thread: no answers without a socket while tracing runs (HTTP carries the spans).
      const local = Object.keys(answers).length && !tracing() ? answers : null;
      router = await startRouter({
        ...listen,
        auth: opts.auth,
        local: local
          ? (subgraph, request) => {
              const answering = local[subgraph]?.(request);
              return (
                answering?.then((reply) => {
                  answeredInProcess++;
                  return reply;
                }) ?? null
              );
            }
          : undefined,
      });
      return router.url;
    },
    subscriptions: async () => router?.subscriptions() ?? { streams: 0, subscribers: 0 },
    answeredInProcess: () => answeredInProcess,
    eventLoopUtilization: (a, b) => performance.eventLoopUtilization(a, b),
    async close() {
      const closing = router;
      router = null;
      await closing?.close();
    },
  };
}
