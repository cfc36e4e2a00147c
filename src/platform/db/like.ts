/** Escapes LIKE's wildcards and its escape character, so the text matches literally. */
export const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
