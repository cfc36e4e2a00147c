import type { DeliveredEvent } from './addons.schemas.js';
import type { OutgoingRequest } from './webhook.payload.js';

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** What happened, per event type: a verb phrase about the flag (Unleash's Slack wording, shortened). */
const PHRASES: Record<string, (e: DeliveredEvent, flag: string) => string> = {
  'feature-created': (_e, flag) => `created a new feature flag ${flag}`,
  'feature-updated': (_e, flag) => `updated ${flag}`,
  'feature-metadata-updated': (_e, flag) => `updated the metadata of ${flag}`,
  'feature-archived': (_e, flag) => `archived ${flag}`,
  'feature-revived': (_e, flag) => `revived ${flag}`,
  'feature-stale-on': (_e, flag) => `marked ${flag} as stale`,
  'feature-stale-off': (_e, flag) => `marked ${flag} as not stale`,
  'feature-potentially-stale-on': (_e, flag) => `noticed that ${flag} is potentially stale`,
  'feature-environment-enabled': (_e, flag) => `enabled ${flag}`,
  'feature-environment-disabled': (_e, flag) => `disabled ${flag}`,
  'feature-strategy-add': (_e, flag) => `added a strategy to ${flag}`,
  'feature-strategy-update': (_e, flag) => `updated a strategy of ${flag}`,
  'feature-strategy-remove': (_e, flag) => `removed a strategy from ${flag}`,
  'feature-variants-updated': (_e, flag) => `updated the variants of ${flag}`,
  'feature-project-change': (e, flag) => {
    const to = (e.data as { newProject?: unknown } | null)?.newProject;
    return typeof to === 'string' ? `moved ${flag} to project *${to}*` : `moved ${flag} to another project`;
  },
  'feature-tagged': (e, flag) => `tagged ${flag} with ${tagText(e.data)}`,
  'feature-untagged': (e, flag) => `removed the tag ${tagText(e.preData)} from ${flag}`,
};

function tagText(tag: unknown): string {
  const { type, value } = (tag ?? {}) as { type?: unknown; value?: unknown };
  return `*${String(type ?? '')}:${String(value ?? '')}*`;
}

/** One sentence for a chat message; Slack markup (`*bold*`, `<url|text>`). */
export function eventSentence(event: DeliveredEvent, flagUrl: string | undefined): string {
  const flag = event.featureName
    ? flagUrl
      ? `<${flagUrl}|${event.featureName}>`
      : `*${event.featureName}*`
    : '';
  const phrase = PHRASES[event.type];
  const what = phrase && flag ? phrase(event, flag) : `triggered *${event.type}*${flag ? ` on ${flag}` : ''}`;
  const where = [
    event.environment ? ` in the *${event.environment}* environment` : '',
    event.project && event.type !== 'feature-project-change' ? ` in project *${event.project}*` : '',
  ].join('');
  return `*${event.createdBy}* ${what}${where}.`;
}

/**
 * The Slack provider's requests for an event: one per channel, to the incoming-webhook URL, as
 * Unleash's slack addon posts them. Channels are the flag's `slack` tags, else `defaultChannel`.
 */
export function slackRequests(
  event: DeliveredEvent,
  parameters: Record<string, unknown>,
  flagUrl: string | undefined,
): OutgoingRequest[] {
  const tagged = (event.tags ?? []).filter((t) => t.type === 'slack').map((t) => t.value);
  const channels = tagged.length > 0 ? tagged : [text(parameters.defaultChannel)];
  const message = eventSentence(event, flagUrl);
  return channels.map((channel) => {
    const body = {
      username: text(parameters.username) || 'Unleash',
      icon_emoji: text(parameters.emojiIcon) || ':unleash:',
      text: message,
      channel: channel.startsWith('#') || channel.startsWith('@') ? channel : `#${channel}`,
      ...(flagUrl && {
        attachments: [
          {
            actions: [
              {
                name: 'featureToggle',
                text: 'Open in Unleash',
                type: 'button',
                value: 'featureToggle',
                style: 'primary',
                url: flagUrl,
              },
            ],
          },
        ],
      }),
    };
    return {
      url: text(parameters.url),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      details: { message, channels },
    };
  });
}
