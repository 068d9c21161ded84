// Single-subgraph pass-through. A query whose whole plan is one fetch from one subgraph (no entity calls, no
// rewrites, no conditions) is sent to that subgraph whole, as the router validated and planned it, and the
// subgraph's answer bytes are the client's answer: the router neither parses them, nor projects them, nor serializes
// them again.
//
// Why it is right: every field that plan reads belongs to that subgraph, and the document is checked to be valid
// on the subgraph's own schema, so the subgraph executing the client's operation gives the answer the router would
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
// plugin only replaces that one fetch's executor. A subgraph that cannot be reached, or answers anything but a
// GraphQL answer, is left to the usual executor, which turns it into the usual (masked) error.
//
// Where the router's projection would change a subgraph's answer, pass-through is off: a supergraph with
// @inaccessible parts (the projection nulls inaccessible types and enum values) or progressive overrides (plans
// chosen per request). Our subgraphs add no `extensions` to their answers, which the projection would drop. The
// router serves one operation per request (yoga's batching is off), which is what keying replies by request needs.
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { type PlanNode, QueryPlanner } from '@graphql-hive/router-query-planner';
import { type DocumentNode, type ExecutionResult, type GraphQLSchema, print, validate } from 'graphql';
import type { LocalReply, LocalRequest } from '../kit/serve.ts';
import { REQUEST_ID_HEADER } from '../platform/log.ts';
import { injectTraceContext } from '../platform/tracing.ts';
import { requestIdOfRequest } from './request-id.ts';

interface DocumentFacts {
  document: DocumentNode;
  text: string;
  plans: Map<string, Promise<string | null>>;
  validOn: Map<string, boolean>;
}

interface Candidate {
  subgraph: string;
  facts: DocumentFacts;
  body: string;
  accept: string;
  request: Request;
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

const DATA = Buffer.from('{"data":');
const ERRORS = Buffer.from('{"errors":');

/**
 * A GraphQL answer yoga wrote: 200 with JSON, or an error status with graphql-response+json (yoga's statuses for
 * errors under that type), starting with `data` or `errors`. Anything else (a proxy's error page, an overloaded
 * server's JSON) goes the usual way, to be masked.
 */
function isGraphqlAnswer(r: Reply): boolean {
  const json =
    r.status === 200
      ? /^application\/(graphql-response\+)?json\b/.test(r.contentType)
      : r.status >= 400 && /^application\/graphql-response\+json\b/.test(r.contentType);
  return json && (r.body.subarray(0, DATA.length).equals(DATA) || r.body.subarray(0, ERRORS.length).equals(ERRORS));
}

/** The subgraph failed before answering (nothing was received): the usual executor may try it again. */
class NoAnswer extends Error {}

function post(agent: Agent, url: string, body: string, accept: string, requestId: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: IncomingHttpHeaders = { 'content-type': 'application/json', accept, [REQUEST_ID_HEADER]: requestId };
    // The subgraph span active here (router/tracing.ts) goes along, as Hive's fetches carry it.
    injectTraceContext(headers);
    let responded = false;
    const req = httpRequest(url, { method: 'POST', headers, agent }, (res) => {
      responded = true;
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
    req.on('error', (err) => reject(responded ? err : new NoAnswer(err.message)));
    req.end(body);
  });
}

export interface PassThroughOptions {
  supergraphSdl: string;
  /**
   * Subgraphs served in this process (router/thread.ts): a request to one of them is answered without a
   * socket; null (not local, or traced) takes HTTP.
   */
  local?: LocalSubgraphs;
}

/** Answers a subgraph request in process, or null where that subgraph is to be reached over HTTP. */
export type LocalSubgraphs = (subgraph: string, request: LocalRequest) => Promise<LocalReply> | null;

export interface PassThrough {
  plugin: GatewayPlugin;
  /** Answers sent as a subgraph's bytes so far (for tests and diagnostics). */
  answered(): number;
  /** Closes the kept-alive connections to the subgraphs. */
  close(): void;
}

export function passThrough(opts: PassThroughOptions): PassThrough {
  const planner = new QueryPlanner(opts.supergraphSdl);
  const agent = new Agent({ keepAlive: true });
  let answered = 0;
  const off = { plugin: {}, answered: () => 0, close: () => agent.destroy() };
  if (planner.overrideLabels.length || planner.overridePercentages.length) return off;
  if (opts.supergraphSdl.includes('@inaccessible')) return off;

  /**
   * Per parsed document (yoga caches them by text): its text, per operation name the subgraph that alone answers it,
   * and per subgraph whether the document is valid on that subgraph's schema as the supergraph records it.
   */
  const documents = new WeakMap<DocumentNode, DocumentFacts>();
  const candidates = new WeakMap<object, Candidate>();
  const replies = new WeakMap<Request, Reply>();
  const inFlight = new Map<string, Promise<Reply>>();

  const factsOf = (document: DocumentNode): DocumentFacts => {
    let facts = documents.get(document);
    if (!facts) {
      facts = { document, text: print(document), plans: new Map(), validOn: new Map() };
      documents.set(document, facts);
    }
    return facts;
  };

  const planFor = (facts: DocumentFacts, operationName: string | undefined): Promise<string | null> => {
    let plan = facts.plans.get(operationName ?? '');
    if (!plan) {
      // Only a query's plan can come back as one subgraph (soleSubgraph): a mutation's never does.
      plan = planner.planAsync(facts.text, operationName, new Set(), 0).then(
        (p) => soleSubgraph(p.node),
        () => null,
      );
      facts.plans.set(operationName ?? '', plan);
    }
    return plan;
  };

  const isValidOn = (name: string, schema: GraphQLSchema, facts: DocumentFacts): boolean => {
    let valid = facts.validOn.get(name);
    if (valid === undefined) {
      valid = validate(schema, facts.document).length === 0;
      facts.validOn.set(name, valid);
    }
    return valid;
  };

  /**
   * Identical requests in flight share one fetch and its bytes, for every subgraph: the subgraph's answer depends on
   * nothing but the request (no caller identity reaches it), and sharing bytes costs no copy, where the executor's
   * merging clones each answer. A shared fetch serves everyone waiting on it: one caller leaving does not abort it.
   */
  const fetchReply = (url: string, c: Candidate): Promise<Reply> => {
    const key = `${c.subgraph}\n${c.accept}\n${c.body}`;
    let reply = inFlight.get(key);
    if (!reply) {
      // Merged with identical requests in flight: the fetch carries the id of the first.
      const requestId = requestIdOfRequest(c.request);
      const local = opts.local?.(c.subgraph, { body: c.body, accept: c.accept, requestId });
      reply = (
        local
          ? local.then(
              (r) => ({
                status: r.status,
                contentType: r.contentType,
                body: Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength),
              }),
              // Not answered in process (the subgraph's thread failed to): the usual executor, over HTTP.
              (err: unknown) => Promise.reject(new NoAnswer(String(err))),
            )
          : post(agent, url, c.body, c.accept, requestId)
      ).finally(() => inFlight.delete(key));
      inFlight.set(key, reply);
    }
    return reply;
  };

  const plugin: GatewayPlugin = {
    onExecute({ args }) {
      const context = args.contextValue;
      const { request } = context;
      if (!request) return;
      const accept = request.headers.get('accept');
      if (!jsonAccept(accept)) return;
      const operationName = args.operationName ?? undefined;
      const facts = factsOf(args.document);
      return planFor(facts, operationName).then((subgraph) => {
        if (!subgraph) return;
        // The document as the router validated and planned it, not the text the client sent.
        const body = JSON.stringify({ query: facts.text, variables: args.variableValues ?? undefined, operationName });
        candidates.set(context, { subgraph, facts, body, accept: accept ?? '*/*', request });
      });
    },
    onSubgraphExecute({ subgraph, subgraphName, executionRequest, executor, setExecutor, transportEntry }) {
      const context = executionRequest.context as object | undefined;
      const candidate = context && candidates.get(context);
      if (!candidate) return;
      candidates.delete(context);
      const url = transportEntry?.location;
      if (candidate.subgraph !== subgraphName || !url?.startsWith('http:')) return;
      if (!isValidOn(subgraphName, subgraph, candidate.facts)) return;
      setExecutor(((req: Parameters<typeof executor>[0]) =>
        fetchReply(url, candidate).then(
          (reply) => {
            if (!isGraphqlAnswer(reply)) return executor(req);
            replies.set(candidate.request, reply);
            // A stand-in: the runtime projects nothing from it, and the answer is the reply's bytes.
            return { data: {} };
          },
          (err: unknown) => {
            if (err instanceof NoAnswer) return executor(req);
            throw err;
          },
        )) as typeof executor);
    },
    onResultProcess({ request, result, setResult, setResultProcessor }) {
      const reply = replies.get(request);
      if (!reply) return;
      replies.delete(request);
      if (Array.isArray(result) || Symbol.asyncIterator in result) return;
      if (Object.keys(result).length) {
        // Something after the fetch added to the result (an error, extensions): the reply, parsed, with it.
        const parsed = JSON.parse(reply.body.toString()) as ExecutionResult;
        const errors = [...(parsed.errors ?? []), ...(result.errors ?? [])];
        const extensions =
          parsed.extensions || result.extensions ? { ...parsed.extensions, ...result.extensions } : undefined;
        setResult({ data: parsed.data, ...(errors.length ? { errors } : {}), ...(extensions ? { extensions } : {}) });
        return;
      }
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
  return { plugin, answered: () => answered, close: () => agent.destroy() };
}
