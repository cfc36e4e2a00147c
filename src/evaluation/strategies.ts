import { Address4 } from 'ip-address';
import { type ContextView, resolveContextValue } from './context.js';
import { inRollout } from './rollout.js';

/**
 * A strategy's own rule with parameters parsed at compile time. `unknown` marks the rules the
 * server cannot decide (docs/evaluation.md §0.3): custom strategy types and `applicationHostname`.
 */
export type StrategyRule = ((view: ContextView) => boolean) | 'unknown';

type Parameters = Record<string, string>;

/** The SDK splits lists on commas with the surrounding whitespace, not the outer one (§5). */
function splitList(list: string | undefined): string[] {
  return list ? list.split(/\s*,\s*/) : [];
}

/** Every built-in type (§5); any other name is a custom strategy type. */
const builders: Record<string, (parameters: Parameters) => StrategyRule> = {
  default: () => () => true,
  userWithId: (parameters) => {
    const ids = splitList(parameters.userIds);
    return ({ context }) => context.userId !== undefined && ids.includes(context.userId);
  },
  gradualRolloutUserId: (parameters) => idRollout(parameters, 'userId'),
  gradualRolloutSessionId: (parameters) => idRollout(parameters, 'sessionId'),
  gradualRolloutRandom: (parameters) => {
    const percentage = Number(parameters.percentage);
    return ({ random }) => percentage >= Math.floor(random() * 100) + 1;
  },
  flexibleRollout: flexibleRollout,
  remoteAddress: remoteAddress,
  // Depends on the host the SDK runs on, which the server cannot know (§0.3, §13 S2).
  applicationHostname: () => 'unknown',
};

export function compileRule(name: string, parameters: Parameters): StrategyRule {
  const build = Object.hasOwn(builders, name) ? builders[name] : undefined;
  return build ? build(parameters) : 'unknown';
}

function idRollout(parameters: Parameters, field: 'userId' | 'sessionId'): StrategyRule {
  const percentage = Number(parameters.percentage);
  const groupId = parameters.groupId || '';
  return ({ context }) => {
    const id = context[field];
    return Boolean(id) && inRollout(String(id), groupId, percentage);
  };
}

/** §5: the SDK's random stickiness id is `round(random * 10000) + 1`. */
function randomId(random: () => number): string {
  return String(Math.round(random() * 10_000) + 1);
}

/**
 * §5 flexibleRollout. A missing groupId falls back to `context.featureToggle` (never injected) and
 * then `""`. `default` stickiness is the top-level userId, sessionId, else random (no remoteAddress,
 * no properties); any other field, `userId` and `sessionId` included, is resolved like a constraint's
 * context field (top level, then `properties`), and a missing or empty one makes the strategy false
 * even at 100 % (client-specification files 10 and 12).
 */
function flexibleRollout(parameters: Parameters): StrategyRule {
  const rollout = Number(parameters.rollout);
  const stickiness = parameters.stickiness || 'default';
  return ({ context, random }) => {
    const groupId = parameters.groupId || (context.featureToggle ? String(context.featureToggle) : '');
    let id: unknown;
    if (stickiness === 'default') id = context.userId || context.sessionId || randomId(random);
    else if (stickiness === 'random') id = randomId(random);
    else id = resolveContextValue(context, stickiness);
    return Boolean(id) && inRollout(String(id), groupId, rollout);
  };
}

/**
 * §5 remoteAddress: an entry equal to the context's `remoteAddress` matches; otherwise entry and
 * address are parsed as IPv4 (address or CIDR) and tested for membership; an entry that does not
 * parse (or IPv6) never matches, the others are still checked.
 */
function remoteAddress(parameters: Parameters): StrategyRule {
  const entries = splitList(parameters.IPs).map((text) => ({ text, range: parseIpv4(text) }));
  return ({ context }) => {
    const remote = context.remoteAddress;
    const address = typeof remote === 'string' ? parseIpv4(remote) : undefined;
    return entries.some(
      ({ text, range }) => text === remote || (range !== undefined && address?.isInSubnet(range) === true),
    );
  };
}

function parseIpv4(text: string): Address4 | undefined {
  return Address4.isValid(text) ? new Address4(text) : undefined;
}
