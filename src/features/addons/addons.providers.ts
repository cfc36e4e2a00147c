import type { AddonProvider } from './addons.schemas.js';

/** What Unleash shows in place of a sensitive parameter's value; sent back, it keeps the value. */
export const MASKED_VALUE = '*****';

/** The flag events Unleash's open-source providers may subscribe to. */
const FLAG_EVENTS = [
  'feature-created',
  'feature-updated',
  'feature-archived',
  'feature-revived',
  'feature-stale-on',
  'feature-stale-off',
  'feature-environment-enabled',
  'feature-environment-disabled',
  'feature-strategy-remove',
  'feature-strategy-update',
  'feature-strategy-add',
  'feature-metadata-updated',
  'feature-variants-updated',
  'feature-project-change',
];

/** Unleash 8.2's `webhook` provider, with its parameters, as `GET /api/admin/addons` lists it. */
const webhook: AddonProvider = {
  name: 'webhook',
  displayName: 'Webhook',
  description: 'A Webhook is a generic way to post messages from Unleash to third party services.',
  documentationUrl: 'https://docs.getunleash.io/integrate/webhook',
  parameters: [
    {
      name: 'url',
      displayName: 'Webhook URL',
      description:
        '(Required) Unleash will perform a HTTP Post to the specified URL (retried with backoff if an attempt fails)',
      type: 'url',
      required: true,
      sensitive: true,
    },
    {
      name: 'contentType',
      displayName: 'Content-Type',
      placeholder: 'application/json',
      description: '(Optional) The Content-Type header to use. Defaults to "application/json".',
      type: 'text',
      required: false,
      sensitive: false,
    },
    {
      name: 'authorization',
      displayName: 'Authorization',
      placeholder: '',
      description: '(Optional) The Authorization header to use. Not used if left blank.',
      type: 'text',
      required: false,
      sensitive: true,
    },
    {
      name: 'bodyTemplate',
      displayName: 'Body template',
      placeholder:
        '{\n  "event": "{{event.type}}",\n  "createdBy": "{{event.createdBy}}",\n  "featureToggle": "{{event.data.name}}",\n  "timestamp": "{{event.data.createdAt}}"\n}',
      description:
        "(Optional) You may format the body using a mustache template. If you don't specify anything, the format will be similar to the events format (https://docs.getunleash.io/concepts/events)",
      type: 'textfield',
      required: false,
      sensitive: false,
    },
    {
      name: 'customHeaders',
      displayName: 'Extra HTTP Headers',
      placeholder: '{\n"ISTIO_USER_KEY": "hgdsfhsjkajs",\n"SOME_OTHER_HEADER": "some value"\n}',
      description:
        '(Optional) Used to add extra HTTP Headers to the request the plugin fires off. Format here needs to be a valid json object of key value pairs where both key and value are strings',
      type: 'textfield',
      required: false,
      sensitive: true,
    },
  ],
  events: [
    ...FLAG_EVENTS,
    'feature-tagged',
    'feature-untagged',
    'feature-potentially-stale-on',
    'change-request-created',
    'change-request-discarded',
    'change-added',
    'change-discarded',
    'change-request-approved',
    'change-request-approval-added',
    'change-request-cancelled',
    'change-request-sent-to-review',
    'change-request-applied',
  ],
};

/** Unleash's `slack` provider: messages to a Slack incoming webhook (or any compatible one). */
const slack: AddonProvider = {
  name: 'slack',
  displayName: 'Slack',
  description: 'Allows Unleash to post updates to Slack.',
  documentationUrl: 'https://docs.getunleash.io/integrate/slack',
  deprecated: 'This integration is deprecated. Please try the new Slack App integration instead.',
  parameters: [
    {
      name: 'url',
      displayName: 'Slack webhook URL',
      description: '(Required)',
      type: 'url',
      required: true,
      sensitive: true,
    },
    {
      name: 'username',
      displayName: 'Username',
      placeholder: 'Unleash',
      description: 'The username to use when posting messages to slack. Defaults to "Unleash".',
      type: 'text',
      required: false,
      sensitive: false,
    },
    {
      name: 'emojiIcon',
      displayName: 'Emoji Icon',
      placeholder: ':unleash:',
      description: 'The emoji_icon to use when posting messages to slack. Defaults to ":unleash:".',
      type: 'text',
      required: false,
      sensitive: false,
    },
    {
      name: 'defaultChannel',
      displayName: 'Default channel',
      description: '(Required) Default channel to post updates to if not specified in the slack-tag',
      type: 'text',
      required: true,
      sensitive: false,
    },
  ],
  events: FLAG_EVENTS,
  tagTypes: [
    {
      name: 'slack',
      description: 'Slack tag used by the slack-addon to specify the slack channel.',
      icon: 'S',
    },
  ],
};

export const PROVIDERS: readonly AddonProvider[] = [webhook, slack];

export function findProvider(name: string): AddonProvider | undefined {
  return PROVIDERS.find((p) => p.name === name);
}
