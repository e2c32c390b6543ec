/**
 * What a file sent inline as base64 costs, instead of what its base64 text would: providers bill
 * an image by its size (about 1,600 tokens full size) and a PDF by its pages, never by its bytes.
 * A 300 KB PDF counted as text is about 100,000 tokens; billed, a few pages are a few thousand.
 */

/**
 * Tokens charged for an image whose size is unknown. Anthropic bills about width × height / 750
 * tokens and scales images down to about 1.15 megapixels, so a full-size image costs about 1,600;
 * smaller images cost less, so this errs on the high side.
 */
export const IMAGE_TOKENS = 1600;

/**
 * Tokens charged per page of a PDF. Anthropic bills each page's text (1,500–3,000 tokens for a
 * page of prose) and its image, Gemini 258 a page; the anchored count corrects the rest from the
 * provider's usage.
 */
export const PDF_PAGE_TOKENS = 1500;

/** Base64 shorter than this is left to the text count: it is not worth a look. */
const MIN_MEDIA_CHARACTERS = 1024;

/** The first base64 characters of the files providers take inline, by kind. */
const signatures: ReadonlyArray<[prefix: string, kind: 'pdf' | 'image']> = [
  ['JVBER', 'pdf'], // %PDF
  ['iVBOR', 'image'], // PNG
  ['/9j/', 'image'], // JPEG
  ['R0lGOD', 'image'], // GIF
  ['UklGR', 'image'], // RIFF (WebP)
];

/** Tokens of a PDF given as base64: its pages × {@link PDF_PAGE_TOKENS}, at least one page. */
export function pdfTokens(base64: string): number {
  return Math.max(1, pdfPages(base64)) * PDF_PAGE_TOKENS;
}

/**
 * Tokens of a string that is an inline image or PDF (bare base64 or a `data:` URL), or undefined
 * for any other string, which is counted as text.
 */
export function inlineMediaTokens(value: string): number | undefined {
  if (value.length < MIN_MEDIA_CHARACTERS) return undefined;
  const base64 = value.startsWith('data:') ? value.slice(value.indexOf(',') + 1) : value;
  const kind = signatures.find(([prefix]) => base64.startsWith(prefix))?.[1];
  if (kind === undefined) return undefined;
  return kind === 'pdf' ? pdfTokens(base64) : IMAGE_TOKENS;
}

/**
 * Pages of a PDF: its `/Type /Page` objects. A PDF whose page objects sit in compressed object
 * streams shows none; it counts one page per 100 KB then.
 */
function pdfPages(base64: string): number {
  let text: string;
  try {
    text = atob(base64.replace(/\s+/g, ''));
  } catch {
    return 1;
  }
  const pages = text.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
  return pages > 0 ? pages : Math.ceil(text.length / 100_000);
}
