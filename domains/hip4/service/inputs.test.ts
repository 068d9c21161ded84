// The hip4 rules the service now leaves to its definitions (it no longer re-checks limit, offset, ids, text, a window
// or a live filter): the bounds of spec §8, a page that starts after a cursor or at an offset, not both, and the live
// streams' filters (one of outcome, question or venue; registry kinds).
import { describe, expect, it } from 'vitest';
import { ANALYTICS, FILL_STREAM, FILLS, QUESTIONS, REGISTRY_STREAM } from './inputs.ts';

describe('hip4 inputs', () => {
  it('a page: limit and offset bounded and defaulted, a cursor or an offset but not both, named per edge', () => {
    expect(QUESTIONS.parse({})).toMatchObject({ limit: 1000, offset: 0 });
    expect(FILLS.parse({})).toMatchObject({ limit: 100, offset: 0 });
    expect(QUESTIONS.parse({ cursor: '12', offset: 0 }).cursor).toBe('12');
    expect(() => QUESTIONS.parse({ cursor: '12', offset: 5 })).toThrow('cursor: give a cursor or an offset, not both');
    expect(() =>
      FILLS.parse({ after: '1:2:0x0000000000000000000000000000000000000001:A', offset: 1 }, 'graphql'),
    ).toThrow('after: give a cursor or an offset, not both');
    expect(() => QUESTIONS.parse({ limit: 0 })).toThrow('limit: must be an integer from 1 to 1000, got 0');
  });

  it('question id filter at most 10000 (spec §8); analytics at most 2000 buckets (spec §8)', () => {
    expect(QUESTIONS.parse({ questionId: 10_000 }).questionId).toBe(10_000);
    expect(() => QUESTIONS.parse({ questionId: 10_001 })).toThrow('questionId: must be an integer from 0 to 10000');
    expect(ANALYTICS.parse({ limit: 2000 }).limit).toBe(2000);
    expect(() => ANALYTICS.parse({ limit: 2001 })).toThrow('limit: must be an integer from 1 to 2000, got 2001');
  });

  it('live fills: of one outcome, question or venue, at most one of them', () => {
    expect(FILL_STREAM.parse({ questionId: 2 }, 'graphql')).toEqual({ questionId: 2 });
    expect(FILL_STREAM.parse({ venue: 'oracle' }, 'graphql')).toEqual({ venue: 'oracle' });
    expect(() => FILL_STREAM.parse({ questionId: 2, venue: 'oddsx' }, 'graphql')).toThrow(
      'questionId, venue: give at most one of them',
    );
    expect(() => FILL_STREAM.parse({ outcomeId: -1 }, 'graphql')).toThrow('outcomeId: must be an integer');
    expect(() => FILL_STREAM.parse({ questionId: 10_001 }, 'graphql')).toThrow(
      'questionId: must be an integer from 0 to 10000, got 10001',
    );
  });

  it('registry changes: of 1 to 5 of the kinds ingest publishes, on /ws as in GraphQL', () => {
    const rule =
      'must be a list of 1 to 5 of VenueRegistered, QuestionRegistered, OutcomeRegistered, OutcomeSettled, ' +
      'QuestionSettled';
    expect(REGISTRY_STREAM.parse({ type: 'hip4Events' }, 'info')).toEqual({});
    expect(REGISTRY_STREAM.parse({ type: 'hip4Events', kinds: ['QuestionSettled'] }, 'info')).toEqual({
      kinds: ['QuestionSettled'],
    });
    expect(() => REGISTRY_STREAM.parse({ kinds: [] }, 'info')).toThrow(`kinds: ${rule}, got 0`);
    expect(() => REGISTRY_STREAM.parse({ kinds: 'OutcomeSettled' }, 'info')).toThrow(
      `kinds: ${rule}, got "OutcomeSettled"`,
    );
    expect(() => REGISTRY_STREAM.parse({ kinds: ['OutcomeSettled', 'Nope'] }, 'graphql')).toThrow(
      'kinds[1]: must be one of VenueRegistered, QuestionRegistered, OutcomeRegistered, OutcomeSettled, ' +
        'QuestionSettled, got "Nope"',
    );
  });
});
