import { List, Text } from '@mantine/core';

/**
 * The service's password rules (src/features/users/password.policy.ts), shown while typing. The
 * service decides: a password these pass is still sent and checked there.
 */
const RULES: { label: string; test: (p: string) => boolean }[] = [
  { label: '10 to 127 characters', test: (p) => p.length >= 10 && p.length < 128 },
  { label: 'a lowercase and an uppercase letter', test: (p) => /[a-z]/.test(p) && /[A-Z]/.test(p) },
  { label: 'a number', test: (p) => /[0-9]/.test(p) },
  { label: 'a special character, such as - or !', test: (p) => /[^A-Za-z0-9]/.test(p) },
  { label: 'no character three times in a row', test: (p) => !/(.)\1\1/u.test(p) },
];

/** A checklist: each rule says in words whether the password meets it (not by colour alone). */
export function PasswordRules({ password }: { password: string }) {
  return (
    <div>
      <Text size="sm" id="password-rules">
        The password needs:
      </Text>
      <List size="sm" aria-labelledby="password-rules" listStyleType="none" spacing={2}>
        {RULES.map((rule) => {
          const met = password !== '' && rule.test(password);
          return (
            <List.Item key={rule.label}>
              <span aria-hidden="true">{met ? '✓ ' : '○ '}</span>
              {rule.label}
              <Text span c="dimmed" size="sm">
                {met ? ' (done)' : ''}
              </Text>
            </List.Item>
          );
        })}
      </List>
    </div>
  );
}
