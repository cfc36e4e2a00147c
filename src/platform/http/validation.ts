import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchema } from 'fastify';
import type { ErrorDetail } from './errors.js';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    // Keeps the offending value on each error, so messages can say what was sent.
    verbose: true,
  });
  addFormats(ajv);
  return ajv;
}

/**
 * Bodies are validated as sent: `name: 123` is a 400, not the string "123". Path and query
 * parameters arrive as text, so they are coerced to the declared types.
 */
export function registerValidation(app: FastifyInstance) {
  const strict = makeAjv(false);
  const coercing = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    lazyValidator(httpPart === 'body' ? strict : coercing, schema),
  );
}

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * Compiles a route's schema on its first request instead of at start: with a hundred routes,
 * compiling every schema up front was most of the start-up time. Fastify reads `errors` from the
 * function it was given, so the wrapper mirrors them.
 */
function lazyValidator(ajv: Ajv, schema: unknown): Validate {
  let compiled: Validate | undefined;
  const validate: Validate = (data) => {
    compiled ??= ajv.compile(schema as object);
    const ok = compiled(data);
    validate.errors = compiled.errors;
    return ok;
  };
  return validate;
}

/**
 * Every failing field as `{path, message}`, the path naming the request part (`/body/name`). A
 * field failing several alternatives (a nullable string sent as a number) is reported once.
 */
export function validationDetails(errors: ErrorObject[], part: string | undefined): ErrorDetail[] {
  const byPath = new Map<string, ErrorObject[]>();
  for (const e of errors) {
    let path = `/${part ?? 'body'}${e.instancePath}`;
    if (e.keyword === 'required') path += `/${(e.params as { missingProperty: string }).missingProperty}`;
    if (e.keyword === 'additionalProperties') {
      path += `/${(e.params as { additionalProperty: string }).additionalProperty}`;
    }
    byPath.set(path, [...(byPath.get(path) ?? []), e]);
  }
  return [...byPath].map(([path, group]) => {
    const types = group.filter((e) => e.keyword === 'type').map((e) => (e.params as { type: string }).type);
    if (types.length > 1) {
      return {
        path,
        message: `The \`${path}\` property must be ${types.join(' or ')}. You sent ${preview(group[0]?.data)}.`,
      };
    }
    const first = group.find((e) => e.keyword !== 'anyOf') ?? (group[0] as ErrorObject);
    return { path, message: describe(first, path) };
  });
}

function describe(e: ErrorObject, path: string): string {
  switch (e.keyword) {
    case 'required':
      return `The \`${path}\` property is required.`;
    case 'additionalProperties':
      return `The \`${path}\` property is not allowed here.`;
    case 'enum':
      return `The \`${path}\` property must be one of the allowed values: ${(
        e.params as { allowedValues: unknown[] }
      ).allowedValues
        .map((v) => JSON.stringify(v))
        .join(', ')}. You sent ${preview(e.data)}.`;
    case 'type':
      return `The \`${path}\` property must be ${(e.params as { type: string }).type}. You sent ${preview(e.data)}.`;
    default:
      return `The \`${path}\` property ${e.message ?? 'is invalid'}. You sent ${preview(e.data)}.`;
  }
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    // Too deeply nested to print (JSON.stringify recurses): a 500 would be worse than a vague message.
    text = Array.isArray(value) ? 'a deeply nested array' : `a deeply nested ${typeof value}`;
  }
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

export type { FastifySchema };
