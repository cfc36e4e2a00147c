import { Type } from 'typebox';

export const DeltaHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({ description: 'The cursor the SDK has: the ETag of its last delta, e.g. `"812"`.' }),
  ),
});

export const StreamingHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({ description: 'The `id:` of the last message the SDK received on a previous stream.' }),
  ),
});

export const DeltaResponse = Type.Object(
  {
    events: Type.Array(
      Type.Unknown({
        description:
          'A delta event with its `eventId`: `hydration` {features, segments}, `feature-updated` {feature}, `feature-removed` {featureName, project}, `segment-updated` {segment} or `segment-removed` {segmentId}.',
      }),
      { description: 'The events to apply in order.' },
    ),
  },
  { description: "Changes to the token's flags and segments since the cursor, or a hydration." },
);

export const StreamingResponse = Type.String({
  description:
    'A text/event-stream: `unleash-connected` first, then `unleash-updated` per change, each `data:` a delta payload {events} and `id:` its last event id; comment lines as keep-alives.',
});
