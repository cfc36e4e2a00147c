import { Type } from 'typebox';

/** A JSON Patch (RFC 6902) body applied to the document `target` names (a flag, a strategy). */
export const jsonPatchBody = (target: string, pathExample: string) =>
  Type.Array(
    Type.Object(
      {
        op: Type.Enum(['add', 'remove', 'replace', 'copy', 'move', 'test'], {
          description: 'The operation.',
          examples: ['replace'],
        }),
        path: Type.String({ description: 'JSON pointer to the target.', examples: [pathExample] }),
        from: Type.Optional(Type.String({ description: 'JSON pointer of the source (move, copy).' })),
        value: Type.Optional(Type.Unknown({ description: 'The value (add, replace, test).' })),
      },
      { description: 'One RFC 6902 JSON Patch operation.' },
    ),
    { maxItems: 1000, description: `A JSON Patch (RFC 6902) applied to ${target}.` },
  );
