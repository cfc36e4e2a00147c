import { type ContextView, compileConstraint } from '../../evaluation/index.js';
import type { ErrorDetail } from '../../platform/http/errors.js';
import { constraintsProblems } from '../strategies/index.js';
import type { ParameterMatchInput } from './actions.schemas.js';

/**
 * An action set's filters on a signal's payload: each names a field by its path (`a.b.c`, an
 * array element by its index) and holds as a constraint on that value would (the same operators,
 * `inverted` and `caseInsensitive`; REGEX on the same safe engine). A value that is not a string
 * is compared as its JSON text (`42`, `true`, `{"a":1}`); a missing field is no value at all.
 */

type Filters = Record<string, ParameterMatchInput>;

const FIELD = 'value';

function valueAt(payload: unknown, path: string): unknown {
  let here = payload;
  for (const key of path.split('.')) {
    if (here === null || typeof here !== 'object') return undefined;
    here = Object.hasOwn(here, key) ? (here as Record<string, unknown>)[key] : undefined;
  }
  return here;
}

const asText = (value: unknown) =>
  value === undefined || value === null
    ? undefined
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

/** A test of payloads against the filters, compiled once for many signals. */
export function compileFilters(filters: Filters): (payload: unknown) => boolean {
  const compiled = Object.entries(filters).map(([path, m]) => ({
    path,
    constraint: compileConstraint({ contextName: FIELD, ...m }),
  }));
  return (payload) =>
    compiled.every(({ path, constraint }) => {
      const view: ContextView = {
        context: { properties: { [FIELD]: asText(valueAt(payload, path)) } },
        now: new Date(),
        random: Math.random,
      };
      return constraint.evaluate(view);
    });
}

/** Every filter whose operator lacks its value(s) or has one that does not parse, at `/body/match/payload/<path>`. */
export function filterProblems(filters: Filters): ErrorDetail[] {
  return Object.entries(filters).flatMap(([path, m]) =>
    constraintsProblems([{ contextName: FIELD, ...m }], '/body/match/payload').map((p) => ({
      ...p,
      path: p.path?.replace('/body/match/payload/0', `/body/match/payload/${path}`),
    })),
  );
}
