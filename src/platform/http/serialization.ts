import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Serialize = (data: unknown) => string;
type RouteSchema = Parameters<ReturnType<ReturnType<typeof SerializerSelector>>>[0];

/**
 * Fastify's own response serializers (fast-json-stringify), each built on its route's first
 * response instead of at start: building a hundred routes' serializers up front was a large part
 * of the start-up time. Shared schemas (`$ref: 'Error'`) resolve as before.
 */
export function lazySerializers() {
  return {
    buildSerializer: (externalSchemas: unknown, options: unknown) => {
      const factory = SerializerSelector()(externalSchemas as never, options as never);
      return (route: RouteSchema): Serialize => {
        let serialize: Serialize | undefined;
        return (data) => {
          serialize ??= factory(route) as Serialize;
          return serialize(data);
        };
      };
    },
  };
}
