import { describe, expect, it } from 'vitest';
import { toolResultTokens } from '../layers/mask.js';
import type { Message, ToolResultBlock } from '../model/messages.js';
import { createHeuristicCounter } from './heuristic-counter.js';
import { IMAGE_TOKENS, inlineMediaTokens, PDF_PAGE_TOKENS, pdfTokens } from './media-tokens.js';
import { countMessageTokens } from './message-tokens.js';

/** A PDF of `pages` pages padded with `padding` bytes of content, as base64. */
function pdf(pages: number, padding = 300_000): string {
  const objects = Array.from(
    { length: pages },
    (_, page) => `${page + 3} 0 obj\n<< /Type /Page /Parent 2 0 R >>\nendobj\n`,
  );
  const body = `%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Count ${pages} >>\nendobj\n${objects.join('')}stream\n${'x'.repeat(padding)}\nendstream\n%%EOF\n`;
  return Buffer.from(body, 'latin1').toString('base64');
}

const counter = createHeuristicCounter();

describe('inline media', () => {
  it('counts a PDF by its pages, not its bytes', () => {
    expect(pdfTokens(pdf(3))).toBe(3 * PDF_PAGE_TOKENS);
    expect(inlineMediaTokens(`data:application/pdf;base64,${pdf(2)}`)).toBe(2 * PDF_PAGE_TOKENS);
  });

  it('counts an inline PNG as an image and leaves other strings to the text count', () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(5000, 7)]).toString(
      'base64',
    );
    expect(inlineMediaTokens(png)).toBe(IMAGE_TOKENS);
    expect(inlineMediaTokens('JVBERi0x')).toBeUndefined();
    expect(inlineMediaTokens('a'.repeat(5000))).toBeUndefined();
  });

  it("counts Claude Code's PDF read (a document in a tool result) and a PDF image source by their pages", () => {
    const data = pdf(4);
    const document = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } };
    const read: Message = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't1', content: [document as never] }],
    };
    const tokens = countMessageTokens(read, counter);
    expect(tokens).toBeGreaterThan(4 * PDF_PAGE_TOKENS);
    expect(tokens).toBeLessThan(4 * PDF_PAGE_TOKENS + 200);
    // Counted as text, its 400 KB of base64 were about 100,000 tokens.
    expect(counter.countText(data)).toBeGreaterThan(50_000);
    const geminiPdf: Message = {
      role: 'user',
      content: [{ type: 'image', source: { type: 'base64', media_type: 'application/pdf', data } }],
    };
    expect(countMessageTokens(geminiPdf, counter)).toBeGreaterThan(4 * PDF_PAGE_TOKENS);
    expect(countMessageTokens(geminiPdf, counter)).toBeLessThan(4 * PDF_PAGE_TOKENS + 20);
    // The layers size the read the same way, so it is masked like any large result.
    expect(toolResultTokens(read.content[0] as ToolResultBlock, counter)).toBeGreaterThan(
      4 * PDF_PAGE_TOKENS,
    );
  });
});
