import Mustache from 'mustache';
import { invalidField } from '../../platform/http/errors.js';
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

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
