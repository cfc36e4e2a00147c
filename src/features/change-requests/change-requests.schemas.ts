import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { ProjectIdParam } from '../shapes/index.js';

/**
 * Change requests' wire shapes, as Unleash's web UI sends and reads them (its
 * `useChangeRequestApi` and `changeRequest.types.ts`).
 */

const Environment = Type.String({
  maxLength: 100,
  description: 'The environment name.',
  examples: ['production'],
});
const RequestId = Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The change request id.' });

export const ProjectEnvironmentParams = Type.Object({ projectId: ProjectIdParam, environment: Environment });
export const RequestParams = Type.Object({ projectId: ProjectIdParam, id: RequestId });
export const ChangeParams = Type.Object({
  projectId: ProjectIdParam,
  id: RequestId,
  changeId: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The change id.' }),
});
export const FlagParams = Type.Object({
  projectId: ProjectIdParam,
  featureName: Type.String({ maxLength: 100, description: 'The flag name.' }),
});

export const States = [
  'Draft',
  'In review',
  'Approved',
  'Scheduled',
  'Applied',
  'Cancelled',
  'Rejected',
] as const;
export type State = (typeof States)[number];
const StateSchema = Type.Union(
  [
    Type.Literal('Draft'),
    Type.Literal('In review'),
    Type.Literal('Approved'),
    Type.Literal('Scheduled'),
    Type.Literal('Applied'),
    Type.Literal('Cancelled'),
    Type.Literal('Rejected'),
  ],
  {
    description:
      'Draft → In review → Approved → Applied (or Scheduled → Applied); Rejected and Cancelled end it.',
  },
);

export const EnvironmentConfigSchema = Type.Object(
  {
    environment: Environment,
    type: Type.String({ description: 'The environment type.', examples: ['production'] }),
    changeRequestEnabled: Type.Boolean({ description: 'Whether changes there need a change request.' }),
    requiredApprovals: Nullable(
      Type.Integer({ description: 'How many people must approve a request there (none while off).' }),
    ),
  },
  { description: "An environment of the project and its change requests' setting." },
);
export const ConfigListSchema = Type.Array(EnvironmentConfigSchema, {
  description: 'Every environment of the project, in display order.',
});

export const UpdateConfigBody = Type.Object(
  {
    changeRequestsEnabled: Type.Boolean({ description: 'Whether changes there need a change request.' }),
    requiredApprovals: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10, description: 'Approvals required (1-10; default 1).' }),
    ),
  },
  { description: "The environment's change request setting." },
);

/** A change as Unleash's UI adds it: the flag (none for a segment), the kind and its payload. */
export const ChangeInput = Type.Object(
  {
    feature: Type.Optional(
      Nullable(
        Type.String({ maxLength: 100, description: 'The flag it changes; none for a segment change.' }),
      ),
    ),
    action: Type.String({ maxLength: 100, description: 'The kind of change.', examples: ['updateEnabled'] }),
    payload: Type.Optional(Type.Unknown({ description: "The change's data, as the kind takes it." })),
  },
  { description: 'One change to add to a change request.' },
);
export type ChangeInputType = Static<typeof ChangeInput>;
export const AddChangesBody = Type.Union(
  [ChangeInput, Type.Array(ChangeInput, { minItems: 1, maxItems: 100, description: 'Several changes.' })],
  { description: 'One change or several, added to the caller’s draft for the environment.' },
);

const Person = Type.Object(
  {
    id: Type.Optional(Type.Integer({ description: 'The user id.' })),
    username: Nullable(Type.String({ description: 'Their user name, else email, else name.' })),
    imageUrl: Nullable(Type.String({ description: 'Their picture.' })),
  },
  { description: 'A person.' },
);

export const ChangeView = Type.Object(
  {
    id: Type.Integer({ description: 'The change id.' }),
    action: Type.String({ description: 'The kind of change.' }),
    payload: Type.Optional(
      Type.Unknown({ description: "The change's data, with what it was made against (`snapshot`)." }),
    ),
    conflict: Type.Optional(
      Type.String({
        description: 'Why it cannot apply as it is now (its target moved); absent when it can.',
      }),
    ),
    createdBy: Person,
    createdAt: Type.String({ format: 'date-time', description: 'When it was added.' }),
  },
  { description: 'A change of a change request.' },
);
export const SegmentChangeView = Type.Object(
  { ...ChangeView.properties, name: Type.String({ description: 'The segment name.' }) },
  { description: 'A segment change of a change request.' },
);

const Review = Type.Object(
  { createdBy: Person, createdAt: Type.String({ format: 'date-time', description: 'When.' }) },
  { description: 'An approval or a rejection.' },
);
const Comment = Type.Object(
  {
    id: Type.Integer({ description: 'The comment id.' }),
    text: Type.String({ description: 'What was said.' }),
    createdBy: Person,
    createdAt: Type.String({ format: 'date-time', description: 'When.' }),
  },
  { description: 'A comment on a change request.' },
);
const Schedule = Type.Object(
  {
    scheduledAt: Type.String({
      format: 'date-time',
      description: 'When it is to be applied (or was tried).',
    }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('failed'), Type.Literal('suspended')], {
      description:
        'pending: waiting; failed: applying it failed; suspended: it will not apply until rescheduled.',
    }),
    reason: Type.Optional(Type.String({ description: 'Why it failed or was suspended.' })),
    failureReason: Type.Optional(
      Nullable(Type.String({ description: 'Deprecated: `reason` when it failed.' })),
    ),
  },
  { description: 'The schedule of a Scheduled change request.' },
);

export const ChangeRequestSchema = Type.Object(
  {
    id: Type.Integer({ description: 'The change request id.' }),
    title: Type.String({ description: 'Its title (generated until one is set).' }),
    project: Type.String({ description: 'The project.' }),
    environment: Type.String({ description: 'The environment its changes apply to.' }),
    state: StateSchema,
    minApprovals: Type.Integer({ description: 'Approvals required.' }),
    createdBy: Person,
    createdAt: Type.String({ format: 'date-time', description: 'When it was created.' }),
    features: Type.Array(
      Type.Object(
        {
          name: Type.String({ description: 'The flag.' }),
          changes: Type.Array(ChangeView, { description: 'Its changes, in the order they were added.' }),
        },
        { description: 'The changes of one flag.' },
      ),
      { description: 'The changes, by flag.' },
    ),
    segments: Type.Array(SegmentChangeView, { description: 'The segment changes.' }),
    approvals: Type.Array(Review, { description: 'Who approved it.' }),
    rejections: Type.Array(Review, { description: 'Who rejected it.' }),
    comments: Type.Array(Comment, { description: 'Its comments, oldest first.' }),
    reviewers: Type.Array(Person, { description: 'The people asked to review it.' }),
    stateTimestamps: Type.Record(Type.String(), Type.String({ format: 'date-time' }), {
      description: 'When it last entered each state it has been in.',
    }),
    schedule: Type.Optional(Schedule),
  },
  { description: 'A change request: changes to one project environment, reviewed before they apply.' },
);
export type ChangeRequestView = Static<typeof ChangeRequestSchema>;
export const ChangeRequestListSchema = Type.Array(ChangeRequestSchema, {
  description: 'Change requests, newest first.',
});

export const StateBody = Type.Object(
  {
    state: Type.Union(
      [
        Type.Literal('In review'),
        Type.Literal('Approved'),
        Type.Literal('Scheduled'),
        Type.Literal('Applied'),
        Type.Literal('Cancelled'),
        Type.Literal('Rejected'),
      ],
      { description: 'The state to move the request to.' },
    ),
    comment: Type.Optional(Type.String({ maxLength: 10_000, description: 'A comment to add with it.' })),
    scheduledAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'With `Scheduled`: when to apply it.' }),
    ),
  },
  { description: 'A transition of a change request.' },
);
export type StateInput = Static<typeof StateBody>;

export const CommentBody = Type.Object(
  { text: Type.String({ minLength: 1, maxLength: 10_000, description: 'The comment.' }) },
  { description: 'A comment.' },
);
export const TitleBody = Type.Object(
  { title: Type.String({ minLength: 1, maxLength: 255, description: 'The new title.' }) },
  { description: 'A title.' },
);
export const ReviewersBody = Type.Object(
  {
    reviewers: Type.Array(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'A user id.' }), {
      maxItems: 100,
      description: 'The people to ask for a review (replaces the list).',
    }),
  },
  { description: 'Requested reviewers.' },
);

export const CountSchema = Type.Object(
  {
    total: Type.Integer({
      description: 'Open requests (in review, approved, scheduled) plus applied and rejected.',
    }),
    applied: Type.Integer({ description: 'Applied.' }),
    approved: Type.Integer({ description: 'Approved, not yet applied.' }),
    rejected: Type.Integer({ description: 'Rejected.' }),
    reviewRequired: Type.Integer({ description: 'In review.' }),
    scheduled: Type.Integer({ description: 'Scheduled.' }),
  },
  { description: "The project's change requests by state (drafts are their authors' own)." },
);
export const ActionableSchema = Type.Object(
  { total: Type.Integer({ minimum: 0, description: 'Requests the caller may approve or apply now.' }) },
  { description: 'What waits for the caller.' },
);
export const ReviewersSchema = Type.Object(
  {
    reviewers: Type.Array(
      Type.Object(
        {
          id: Type.Integer({ description: 'The user id.' }),
          name: Nullable(Type.String({ description: 'Their name.' })),
          email: Type.String({ description: 'Their email (empty when none).' }),
          username: Nullable(Type.String({ description: 'Their user name.' })),
          imageUrl: Nullable(Type.String({ description: 'Their picture.' })),
        },
        { description: 'A person who may approve.' },
      ),
      { description: 'People who may approve change requests in the environment.' },
    ),
  },
  { description: 'Possible reviewers.' },
);

export const SearchQuery = Type.Object({
  createdBy: Type.Optional(Type.String({ maxLength: 20, description: 'Only requests by this user id.' })),
  requestedApproverId: Type.Optional(
    Type.String({ maxLength: 20, description: 'Only requests that ask this user id for a review.' }),
  ),
  state: Type.Optional(
    Type.String({
      maxLength: 20,
      description:
        'IS:open (draft, in review, approved, scheduled) or IS:closed (applied, cancelled, rejected).',
    }),
  ),
  offset: Type.Optional(Type.Integer({ minimum: 0, description: 'How many to skip.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'How many (default 50).' })),
});
export const SearchSchema = Type.Object(
  {
    changeRequests: Type.Array(
      Type.Object(
        {
          id: Type.Integer({ description: 'The id.' }),
          title: Type.Optional(Type.String({ description: 'Its title, when one was set.' })),
          project: Type.String({ description: 'The project.' }),
          environment: Type.String({ description: 'The environment.' }),
          state: StateSchema,
          createdBy: Person,
          createdAt: Type.String({ format: 'date-time', description: 'When it was created.' }),
          features: Type.Array(Type.String(), { description: 'The flags it changes.' }),
          segments: Type.Array(Type.String(), { description: 'The segments it changes.' }),
        },
        { description: 'A change request found.' },
      ),
      { description: 'The page, newest first.' },
    ),
    total: Type.Integer({ description: 'How many match.' }),
  },
  { description: 'Change requests found.' },
);

const OneOrMany = (description: string) =>
  Type.Optional(
    Type.Union(
      [Type.String({ maxLength: 100 }), Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })],
      {
        description,
      },
    ),
  );
export const ScheduledQuery = Type.Object({
  feature: OneOrMany('Flags: requests with a change of one of them.'),
  strategyId: OneOrMany('Strategy ids: requests with a change of one of them.'),
  variantForFlag: OneOrMany('Flags: requests that change the variants of one of them.'),
});
export const ScheduledSchema = Type.Array(
  Type.Object(
    {
      id: Type.Integer({ description: 'The change request id.' }),
      environment: Type.String({ description: 'Its environment.' }),
      title: Type.Optional(Type.String({ description: 'Its title, when one was set.' })),
    },
    { description: 'A scheduled change request.' },
  ),
  { description: 'Scheduled change requests that would meet a direct change of what was named.' },
);
