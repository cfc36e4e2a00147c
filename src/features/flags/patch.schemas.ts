import { type Static, Type } from 'typebox';

export const FlagPatchBody = Type.Array(
  Type.Object(
    {
      op: Type.Enum(['add', 'remove', 'replace', 'copy', 'move', 'test'], {
        description: 'The operation.',
        examples: ['replace'],
      }),
      path: Type.String({ description: 'JSON pointer to the target.', examples: ['/description'] }),
      from: Type.Optional(Type.String({ description: 'JSON pointer of the source (move, copy).' })),
      value: Type.Optional(Type.Unknown({ description: 'The value (add, replace, test).' })),
    },
    { description: 'One RFC 6902 JSON Patch operation.' },
  ),
  {
    maxItems: 1000,
    description:
      'A JSON Patch (RFC 6902) applied to the flag document {name, project, description, type, stale, impressionData, archived}.',
  },
);
export type FlagPatchInput = Static<typeof FlagPatchBody>;
