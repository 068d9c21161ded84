// The router's error masking: a subgraph's own (already masked) error passes; anything else is masked.
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { maskRouterError } from './plugins.ts';

describe('maskRouterError', () => {
  it("passes a subgraph's formatted error on as a GraphQLError", () => {
    const sent = {
      message: 'users: at most 50 addresses',
      path: ['liquidations'],
      extensions: { code: 'BAD_USER_INPUT', serviceName: 'accounts' },
    };
    const out = maskRouterError(sent, 'Unexpected error.');
    expect(out).toBeInstanceOf(GraphQLError);
    expect((out as GraphQLError).toJSON()).toMatchObject(sent);
  });

  it('masks what did not come formatted from a subgraph', () => {
    for (const error of [
      new Error('connection string with a password'),
      { message: 'no service name', extensions: { code: 'BAD_USER_INPUT' } },
      Object.assign(new Error('an Error with a service name'), { extensions: { serviceName: 'accounts' } }),
    ]) {
      const out = maskRouterError(error, 'Unexpected error.') as GraphQLError;
      expect(out.message).toBe('Unexpected error.');
      expect(out.extensions.code).toBe('INTERNAL_SERVER_ERROR');
    }
  });

  it('keeps an original GraphQLError of the router itself', () => {
    const own = new GraphQLError('too deep', { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    expect(maskRouterError(own, 'Unexpected error.')).toBe(own);
  });
});
