/**
 * The password rules (the OWASP strength test as Unleash applies it, passphrases not exempt), in
 * the order they are reported. They guard every place a password is set.
 */
const RULES: { test: (password: string) => boolean; message: string }[] = [
  { test: (p) => p.length >= 10, message: 'The password must be at least 10 characters long.' },
  { test: (p) => p.length < 128, message: 'The password must be fewer than 128 characters.' },
  {
    test: (p) => !/(.)\1\1/u.test(p),
    message: 'The password may not contain sequences of three or more repeated characters.',
  },
  { test: (p) => /[a-z]/.test(p), message: 'The password must contain at least one lowercase letter.' },
  { test: (p) => /[A-Z]/.test(p), message: 'The password must contain at least one uppercase letter.' },
  { test: (p) => /[0-9]/.test(p), message: 'The password must contain at least one number.' },
  {
    test: (p) => /[^A-Za-z0-9]/.test(p),
    message: 'The password must contain at least one special character.',
  },
];

/** The messages of every rule the password breaks (empty: acceptable). */
export function passwordProblems(password: string): string[] {
  return RULES.filter((rule) => !rule.test(password)).map((rule) => rule.message);
}
