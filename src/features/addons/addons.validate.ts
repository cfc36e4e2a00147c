import Mustache from 'mustache';
import type { Principal } from '../../platform/http/auth.js';
import { invalidField } from '../../platform/http/errors.js';
import { checkUrlResolving, outgoingPolicy } from '../../platform/outgoing.js';
import { webUrl } from '../../platform/web-url.js';
import { readsWholeLog } from '../events/index.js';
import { findProvider, MASKED_VALUE, PROVIDERS } from './addons.providers.js';
import type { AddonProvider } from './addons.schemas.js';
import { parseCustomHeaders } from './webhook.payload.js';

/** The provider named in the body, or a 400 on `/body/provider` that lists the known ones. */
export function knownProvider(name: string): AddonProvider {
  const provider = findProvider(name);
  if (provider) return provider;
  const known = PROVIDERS.map((p) => p.name).join(', ');
  throw invalidField('/body/provider', `"${name}" is not an addon provider; use one of: ${known}.`);
}

/** The provider's parameters with their values shown as `*****` where sensitive (as Unleash). */
export function maskParameters(
  provider: string,
  parameters: Record<string, unknown>,
): Record<string, unknown> {
  const sensitive = new Set(
    (findProvider(provider)?.parameters ?? []).filter((p) => p.sensitive).map((p) => p.name),
  );
  return Object.fromEntries(
    Object.entries(parameters).map(([name, value]) => [name, sensitive.has(name) ? MASKED_VALUE : value]),
  );
}

/**
 * The parameters to store: a sensitive one sent back as `*****` keeps its stored value (the UI
 * sends what it was shown); then every rule of the provider, each failure a 400 naming the field.
 * Parameters the provider does not know are kept as given, as Unleash does.
 */
export function checkParameters(
  provider: AddonProvider,
  given: Record<string, unknown>,
  stored: Record<string, unknown> = {},
): Record<string, unknown> {
  const result: Record<string, unknown> = { ...given };
  for (const definition of provider.parameters) {
    const { name } = definition;
    const path = `/body/parameters/${name}`;
    if (definition.sensitive && result[name] === MASKED_VALUE) {
      if (typeof stored[name] !== 'string')
        throw invalidField(path, `"${name}" has no stored value to keep; send the value itself.`);
      result[name] = stored[name];
    }
    const value = result[name];
    if (value !== undefined && value !== null && typeof value !== 'string')
      throw invalidField(path, `The parameter "${name}" must be a string.`);
    const text = typeof value === 'string' ? value.trim() : '';
    if (text === '') {
      if (definition.required)
        throw invalidField(path, `The ${provider.name} provider requires the parameter "${name}".`);
      continue;
    }
    if (definition.type === 'url' && !isHttpUrl(text))
      throw invalidField(path, `"${name}" must be an http or https URL; "${text}" is not.`);
    if (name === 'customHeaders') {
      const headers = parseCustomHeaders(text);
      if (typeof headers === 'string') throw invalidField(path, headers);
    }
    if (name === 'bodyTemplate') {
      try {
        Mustache.parse(text);
      } catch (error) {
        throw invalidField(path, `The body template is not valid Mustache: ${(error as Error).message}`);
      }
    }
  }
  return result;
}

const isHttpUrl = (text: string) => webUrl(text) !== undefined;

/**
 * The provider's URL parameters may be called (platform/outgoing.ts): not an internal address in
 * any spelling, nor a name that resolves only to such addresses, unless OUTGOING_ALLOWED_HOSTS
 * allows it; else a 400 naming the parameter and the setting. A name that does not resolve now is
 * accepted: every delivery resolves it again and checks the addresses it connects to.
 */
export async function checkTargets(
  provider: AddonProvider,
  parameters: Record<string, unknown>,
  allowed: string,
): Promise<void> {
  const policy = outgoingPolicy(allowed);
  for (const definition of provider.parameters) {
    const value = parameters[definition.name];
    if (definition.type !== 'url' || typeof value !== 'string' || value.trim() === '') continue;
    const verdict = await checkUrlResolving(policy, value.trim());
    if (!verdict.ok)
      throw invalidField(
        `/body/parameters/${definition.name}`,
        `"${definition.name}" cannot be called: ${verdict.reason}`,
      );
  }
}

/**
 * An addon delivers only events that those who chose its settings may read (delivery.auth.ts);
 * so the caller may subscribe only to such event types: any type with ADMIN, else the flag events
 * the provider offers (a flag's events are open to every signed-in user). Else a 400.
 */
export function checkEvents(provider: AddonProvider, events: string[], by: Principal): void {
  if (readsWholeLog(by.grants)) return;
  const offered = new Set(provider.events);
  const other = events.find((type) => !offered.has(type));
  if (other !== undefined)
    throw invalidField(
      '/body/events',
      `"${other}" is not an event type you may subscribe to: without the ADMIN permission, an addon can only subscribe to the flag events of its provider (${provider.name}).`,
    );
}
