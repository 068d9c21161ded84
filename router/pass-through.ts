// Single-subgraph pass-through. A query whose whole plan is one fetch from one subgraph (no entity calls, no
// rewrites, no conditions) is sent to that subgraph as the client wrote it, and the subgraph's answer bytes are the
// client's answer: the router neither parses them, nor projects them, nor serializes them again.
//
// Why it is right: every field that plan reads belongs to that subgraph, and the document is checked to be valid
// on the subgraph's own schema, so the subgraph executing the client's document gives the answer the router would
// have projected from the subgraph's answer to the planned one (router/pass-through.test.ts compares the two byte
// for byte). One difference, in errors only: the router names the subgraph in each error (`serviceName`) and
// leaves out a `data` that is null; passed through, an error reads as the subgraph wrote it.
//
// Why it pays: User.fills(first: 2000) is a 176 kB answer, and each pass over it in the router thread (read as
// text, parse, project, stringify, flatten, encode) cost 11–12 ms of CPU per request in a profile, with the garbage
// it left (npm run bench prints the router with and without this).
//
// Everything before execution is unchanged (key rules, depth, token and cost limits, validation against the
// supergraph); the cost limit still runs on the planned fetch, through the gateway's subgraph-execute hooks: this
// plugin only replaces that one fetch's executor. A subgraph that cannot be reached, or answers anything but
// GraphQL JSON, is left to the usual executor, which turns it into the usual error.
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { type PlanNode, QueryPlanner } from '@graphql-hive/router-query-planner';
import { type DocumentNode, type GraphQLSchema, getOperationAST, print, validate } from 'graphql';

interface Candidate {
  subgraph: string;
  document: DocumentNode;
  body: string;
  accept: string;
}

/** A subgraph's answer as it came: status, media type and bytes. */
interface Reply {
  status: number;
  contentType: string;
  body: Buffer;
}

/** A root fetch of a query with nothing to do after it: the only plan the subgraph's own answer can stand for. */
function soleSubgraph(node: PlanNode | undefined): string | null {
  if (node?.kind !== 'Fetch' || node.operationKind !== 'query') return null;
  if (node.requires?.length || node.inputRewrites?.length || node.outputRewrites?.length) return null;
  return node.serviceName;
}

/** Accept headers whose answer is one JSON document (not SSE, not multipart): yoga picks the same type for both. */
function jsonAccept(accept: string | null): boolean {
  if (!accept) return true;
  if (accept.includes('text/event-stream') || accept.includes('multipart/')) return false;
  return accept.includes('json') || accept.includes('*/*');
}

const JSON_TYPE = /^application\/(graphql-response\+)?json\b/;

const agent = new Agent({ keepAlive: true });

function post(url: string, body: string, accept: string, signal?: AbortSignal): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: IncomingHttpHeaders = { 'content-type': 'application/json', accept };
    const req = httpRequest(url, { method: 'POST', headers, agent, signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 502,
          contentType: res.headers['content-type'] ?? '',
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface PassThroughOptions {
  supergraphSdl: string;
  /** Whether identical requests in flight to this subgraph share one answer (its bytes are never copied). */
  merge(subgraph: string): boolean;
}

export interface PassThrough {
  plugin: GatewayPlugin;
  /** Answers sent as a subgraph's bytes so far (for tests and diagnostics). */
  answered(): number;
}

export function passThrough(opts: PassThroughOptions): PassThrough {
  const planner = new QueryPlanner(opts.supergraphSdl);
  let answered = 0;
  // With progressive overrides, a plan depends on labels chosen per request: leave those graphs to the runtime.
  if (planner.overrideLabels.length || planner.overridePercentages.length) return { plugin: {}, answered: () => 0 };
  /** Per parsed document (yoga caches them by text) and operation name: the subgraph that alone answers it. */
  const plans = new WeakMap<DocumentNode, Map<string, Promise<string | null>>>();
  const candidates = new WeakMap<object, Candidate>();
  const replies = new WeakMap<Request, Reply>();
  const inFlight = new Map<string, Promise<Reply>>();
  /** Per parsed document: whether it is valid on the subgraph's own schema as the supergraph records it. */
  const validOnSubgraph = new WeakMap<DocumentNode, boolean>();

  const isValidOn = (schema: GraphQLSchema, document: DocumentNode): boolean => {
    let valid = validOnSubgraph.get(document);
    if (valid === undefined) {
      valid = validate(schema, document).length === 0;
      validOnSubgraph.set(document, valid);
    }
    return valid;
  };

  const planFor = (document: DocumentNode, operationName: string | undefined): Promise<string | null> => {
    let byName = plans.get(document);
    if (!byName) {
      byName = new Map();
      plans.set(document, byName);
    }
    let plan = byName.get(operationName ?? '');
    if (!plan) {
      plan = planner.planAsync(print(document), operationName, new Set(), 0).then(
        (p) => soleSubgraph(p.node),
        () => null,
      );
      byName.set(operationName ?? '', plan);
    }
    return plan;
  };

  const fetchReply = (url: string, c: Candidate, signal?: AbortSignal): Promise<Reply> => {
    if (!opts.merge(c.subgraph)) return post(url, c.body, c.accept, signal);
    const key = `${c.subgraph}\n${c.accept}\n${c.body}`;
    let reply = inFlight.get(key);
    if (!reply) {
      // A merged fetch serves every caller waiting on it: one caller leaving does not abort it.
      reply = post(url, c.body, c.accept).finally(() => inFlight.delete(key));
      inFlight.set(key, reply);
    }
    return reply;
  };

  const plugin: GatewayPlugin = {
    onExecute({ args }) {
      const context = args.contextValue;
      const { request, params } = context;
      if (!request || typeof params?.query !== 'string') return;
      if (getOperationAST(args.document, args.operationName)?.operation !== 'query') return;
      const accept = request.headers.get('accept');
      if (!jsonAccept(accept)) return;
      return planFor(args.document, args.operationName ?? undefined).then((subgraph) => {
        if (!subgraph) return;
        const body = JSON.stringify({
          query: params.query,
          variables: params.variables ?? undefined,
          operationName: params.operationName ?? undefined,
        });
        candidates.set(context, { subgraph, document: args.document, body, accept: accept ?? 'application/json' });
      });
    },
    onSubgraphExecute({ subgraph, subgraphName, executionRequest, executor, setExecutor, transportEntry }) {
      const context = executionRequest.context as { request?: Request } | undefined;
      const candidate = context && candidates.get(context);
      if (!candidate) return;
      candidates.delete(context);
      const url = transportEntry?.location;
      if (candidate.subgraph !== subgraphName || !url || !context.request) return;
      if (!isValidOn(subgraph, candidate.document)) return;
      const request = context.request;
      setExecutor(((req: Parameters<typeof executor>[0]) =>
        fetchReply(url, candidate, req.signal).then(
          (reply) => {
            if (!JSON_TYPE.test(reply.contentType)) return executor(req);
            replies.set(request, reply);
            return { data: {} };
          },
          () => executor(req),
        )) as typeof executor);
    },
    onResultProcess({ request, result, setResultProcessor }) {
      const reply = replies.get(request);
      if (!reply) return;
      replies.delete(request);
      if (Array.isArray(result) || (result as { errors?: unknown[] }).errors?.length) return;
      answered++;
      setResultProcessor(
        (_result, fetchAPI) =>
          new fetchAPI.Response(reply.body as Uint8Array<ArrayBuffer>, {
            status: reply.status,
            headers: { 'content-type': reply.contentType },
          }),
        reply.contentType,
      );
    },
  };
  return { plugin, answered: () => answered };
}
