// The router's Prometheus metrics at its GET /metrics: Hive Gateway's Prometheus plugin (GraphQL operations by
// name and type, their latency and errors, subgraph executions) over a registry of this router's own, served to
// loopback peers only, as compat-rest's /metrics is.
import type { GatewayConfigContext, GatewayPlugin } from '@graphql-hive/gateway-runtime';
import useMeshPrometheus from '@graphql-mesh/plugin-prometheus';
import { Registry } from 'prom-client';
import { errorBody, statusOf } from '../platform/error-codes.ts';
import { isLoopback } from '../platform/metrics.ts';

export const ROUTER_METRICS_PATH = '/metrics';

/** The refusal of /metrics to a peer off this machine, before the Prometheus plugin answers it. */
function loopbackOnly(): GatewayPlugin {
  return {
    onRequest({ url, serverContext, endResponse, fetchAPI }) {
      if (url.pathname !== ROUTER_METRICS_PATH) return;
      const peer = (serverContext as { req?: { socket?: { remoteAddress?: string } } }).req?.socket?.remoteAddress;
      if (isLoopback(peer)) return;
      endResponse(
        new fetchAPI.Response(JSON.stringify(errorBody('forbidden', 'metrics: served to loopback peers only')), {
          status: statusOf('forbidden'),
          headers: { 'content-type': 'application/json' },
        }),
      );
    },
  };
}

export function routerMetrics(ctx: GatewayConfigContext): GatewayPlugin[] {
  return [
    loopbackOnly(),
    useMeshPrometheus({
      log: ctx.log,
      endpoint: ROUTER_METRICS_PATH,
      registry: new Registry(),
      metrics: {
        graphql_envelop_request: true,
        graphql_envelop_request_duration: true,
        graphql_envelop_error_result: true,
        graphql_envelop_phase_subscribe: true,
        graphql_yoga_http_duration: true,
        graphql_gateway_subgraph_execute_duration: true,
      },
    }) as GatewayPlugin,
  ];
}
