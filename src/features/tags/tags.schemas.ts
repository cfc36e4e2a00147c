import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { FlagNameParam, ProjectIdParam, TagSchema } from '../shapes/index.js';

/** Tag type names: URL-safe, 2-50 characters (the database CHECK says the same). */
export const TAG_TYPE_NAME_PATTERN = '^[a-zA-Z0-9_.~-]{2,50}$';
const COLOR_PATTERN = '^#[0-9A-Fa-f]{6}$';

export type Tag = Static<typeof TagSchema>;

export const TagInput = Type.Object(
  {
    value: Type.String({
      maxLength: 200,
      description: 'The tag value: 2-50 characters once leading and trailing whitespace is trimmed.',
      examples: ['team-a'],
    }),
    type: Type.String({
      minLength: 2,
      maxLength: 50,
      description: 'An existing tag type.',
      examples: ['simple'],
    }),
  },
  { description: 'A tag.' },
);
export type TagInputType = Static<typeof TagInput>;

export const TagsResponse = Type.Object(
  {
    version: Type.Integer({ description: 'Schema version, always 1.', examples: [1] }),
    tags: Type.Array(TagSchema, { description: 'The tags, by type then value.' }),
  },
  { description: 'A list of tags.' },
);
export const TagWithVersion = Type.Object(
  {
    version: Type.Integer({ description: 'Schema version, always 1.', examples: [1] }),
    tag: TagSchema,
  },
  { description: 'One tag.' },
);

export const UpdateFlagTagsBody = Type.Object(
  {
    addedTags: Type.Array(TagInput, { maxItems: 1000, description: 'Tags to put on the flag.' }),
    removedTags: Type.Array(TagInput, { maxItems: 1000, description: 'Tags to take off the flag.' }),
  },
  { description: 'Tags to add to and remove from a flag.' },
);
export type UpdateFlagTagsInput = Static<typeof UpdateFlagTagsBody>;

export const TagTypeSchema = Type.Object(
  {
    name: Type.String({ description: 'The tag type name.', examples: ['color'] }),
    description: Nullable(Type.String({ description: 'What the tag type is for.' })),
    icon: Nullable(Type.String({ description: 'An icon name (not used by the service).' })),
    color: Nullable(Type.String({ description: 'Hexadecimal colour, e.g. #FFFFFF.' })),
  },
  { description: 'A tag type.' },
);
export type TagType = Static<typeof TagTypeSchema>;

const TagTypeFields = {
  description: Type.Optional(
    Nullable(Type.String({ maxLength: 10_000, description: 'What the tag type is for.' })),
  ),
  icon: Type.Optional(Nullable(Type.String({ maxLength: 1000, description: 'An icon name.' }))),
  color: Type.Optional(
    Nullable(
      Type.String({ pattern: COLOR_PATTERN, description: 'Hexadecimal colour.', examples: ['#FFFFFF'] }),
    ),
  ),
};
export const CreateTagTypeBody = Type.Object(
  {
    name: Type.String({
      pattern: TAG_TYPE_NAME_PATTERN,
      description: 'Unique name: 2-50 URL-safe characters (letters, digits, _ . ~ -).',
      examples: ['color'],
    }),
    ...TagTypeFields,
  },
  { description: 'A new tag type.' },
);
export type CreateTagTypeInput = Static<typeof CreateTagTypeBody>;
export const UpdateTagTypeBody = Type.Object(TagTypeFields, {
  description: 'Tag type properties to change; those left out keep their values, null clears.',
});
export type UpdateTagTypeInput = Static<typeof UpdateTagTypeBody>;

export const TagTypesResponse = Type.Object(
  {
    version: Type.Integer({ description: 'Schema version, always 1.', examples: [1] }),
    tagTypes: Type.Array(TagTypeSchema, { description: 'All tag types, by name.' }),
  },
  { description: 'The tag types.' },
);
export const ValidateTagTypeResponse = Type.Object(
  {
    valid: Type.Boolean({ description: 'Always true: an invalid or taken name is an error response.' }),
    tagType: TagTypeSchema,
  },
  { description: 'The outcome of validating a tag type.' },
);

export const TypeParams = Type.Object({
  type: Type.String({ maxLength: 100, description: 'The tag type.', examples: ['simple'] }),
});
export const TagParams = Type.Object({
  type: Type.String({ maxLength: 100, description: 'The tag type.', examples: ['simple'] }),
  value: Type.String({ maxLength: 200, description: 'The tag value.', examples: ['team-a'] }),
});
export const TagTypeParams = Type.Object({
  name: Type.String({ maxLength: 100, description: 'The tag type name.', examples: ['simple'] }),
});
export const FlagTagsParams = Type.Object({
  featureName: FlagNameParam,
});
export const FlagTagParams = Type.Object({
  featureName: FlagNameParam,
  type: Type.String({ maxLength: 100, description: 'The tag type.', examples: ['simple'] }),
  value: Type.String({ maxLength: 200, description: 'The tag value.', examples: ['team-a'] }),
});

export const ProjectTagsParams = Type.Object({
  projectId: ProjectIdParam,
});

export const BulkTagsBody = Type.Object(
  {
    features: Type.Array(
      Type.String({ minLength: 1, maxLength: 100, description: 'A flag of the project.' }),
      {
        minItems: 1,
        maxItems: 1000,
        description: 'The flags to tag.',
      },
    ),
    tags: UpdateFlagTagsBody,
  },
  { additionalProperties: false, description: 'Tags to add to and remove from several flags.' },
);
