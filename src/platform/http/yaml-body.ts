import type { FastifyInstance } from 'fastify';
import { parse } from 'yaml';
import { invalid } from './errors.js';

/** The media types a YAML document may arrive as (RFC 9512 names `application/yaml`). */
export const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml'];

/**
 * Lets the routes of the plugin it is called in take YAML bodies as well as JSON; the parsed
 * document then meets the same schema validation as a JSON one. Call it inside a slice's
 * `routes()` plugin: Fastify keeps the parser to that plugin's routes. Aliases and merge keys are
 * capped (`maxAliasCount`) so a small "billion laughs" document cannot expand without bound, and
 * a document that is not YAML is a 400 `ValidationError` naming the parser's complaint.
 */
export function acceptYamlBodies(app: Pick<FastifyInstance, 'addContentTypeParser'>, bodyLimit?: number) {
  app.addContentTypeParser(
    YAML_TYPES,
    { parseAs: 'string', ...(bodyLimit ? { bodyLimit } : {}) },
    (_request, body, done) => {
      try {
        done(null, parse(body as string, { maxAliasCount: 100, uniqueKeys: true }) ?? undefined);
      } catch (error) {
        const message = error instanceof Error ? error.message.split('\n')[0] : 'unreadable';
        done(invalid(`The body is not a valid YAML document: ${message}`), undefined);
      }
    },
  );
}
