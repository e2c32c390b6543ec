import { describe, expect, it } from 'vitest';
import { RecentMap } from './_recent-map.js';
import { type RoutedThread, ThreadRoutes } from './thread-routes.js';

const thread = (...consumedKeys: string[]): RoutedThread => ({ consumedKeys });

describe('ThreadRoutes.route', () => {
  it('names the first thread of an opening after it, and a call that continues none a numbered fork', () => {
    const routes = new ThreadRoutes();
    const threads = new RecentMap<string, RoutedThread>({ max: 10 });
    expect(routes.route(threads, 'conv-a', ['hi'])).toBe('conv-a');
    threads.set('conv-a', thread('hi', 'alice'));
    expect(routes.route(threads, 'conv-a', ['hi', 'bob'])).toBe('conv-a.1');
    expect(routes.route(threads, 'conv-a', ['hi', 'alice', 'more'])).toBe('conv-a');
  });

  it('picks the thread with the longest last call the new call repeats', () => {
    const routes = new ThreadRoutes();
    const threads = new RecentMap<string, RoutedThread>({ max: 10 });
    threads.set('conv-a', thread('hi'));
    threads.set('conv-a.1', thread('hi', 'x', 'y'));
    threads.set('conv-a.2', thread('hi', 'x'));
    expect(routes.route(threads, 'conv-a', ['hi', 'x', 'y', 'z'])).toBe('conv-a.1');
    expect(routes.route(threads, 'conv-a', ['hi', 'x', 'w'])).toBe('conv-a.2');
  });

  it('continues a thread whose compacted messages the call holds instead of the history', () => {
    const routes = new ThreadRoutes();
    const threads = new RecentMap<string, RoutedThread>({ max: 10 });
    threads.set('conv-a', { consumedKeys: ['hi', 'long'], carriedKeys: ['hi', 'short'] });
    expect(routes.route(threads, 'conv-a', ['hi', 'short', 'next'])).toBe('conv-a');
  });

  it('continues the thread whose newest two items a call holds after the app dropped or rewrote earlier ones', () => {
    const routes = new ThreadRoutes();
    const threads = new RecentMap<string, RoutedThread>({ max: 10 });
    threads.set('conv-a', thread('hi', 'call 1', 'result 1', 'call 2', 'result 2'));
    threads.set('conv-a.9', thread('hi', 'other', 'ok'));
    // Dropped, rewritten, then a step more: the same conversation.
    expect(routes.route(threads, 'conv-a', ['hi', 'call 2', 'result 2', 'call 3'])).toBe('conv-a');
    expect(routes.route(threads, 'conv-a', ['hi', 'call 1', 'trimmed', 'call 2', 'result 2'])).toBe('conv-a');
    // The newest item alone, or the two apart, or the opening alone: another chat.
    expect(routes.route(threads, 'conv-a', ['hi', 'question', 'result 2'])).toBe('conv-a.1');
    expect(routes.route(threads, 'conv-a', ['hi', 'call 2', 'x', 'result 2'])).toBe('conv-a.2');
    expect(routes.route(threads, 'conv-a', ['call 2', 'result 2'])).toBe('conv-a.3');
  });

  it("continues another opening's thread whose newest two items the call holds: a window that slid", () => {
    const routes = new ThreadRoutes();
    const threads = new RecentMap<string, RoutedThread>({ max: 10 });
    threads.set('conv-q1', thread('q1', 'a1', 'q2', 'a2', 'q3'));
    expect(routes.route(threads, 'conv-q2', ['q2', 'a2', 'q3', 'a3', 'q4'])).toBe('conv-q1');
    expect(routes.route(threads, 'conv-q3', ['q3', 'a3', 'q4'])).toBe('conv-q3');
    // Another chat that happens to hold the same two (a canned greeting, a common question) opens
    // with a message the thread never had: its own.
    expect(routes.route(threads, 'conv-hey', ['hey', 'a2', 'q3', 'a3'])).toBe('conv-hey');
  });

  it('continues a thread whose last call the call holds but its newest item, as after a side call', () => {
    const routes = new ThreadRoutes();
    const threads = new RecentMap<string, RoutedThread>({ max: 10 });
    threads.set('conv-a', thread('hi', 'answer', 'title?'));
    expect(routes.route(threads, 'conv-a', ['hi', 'answer', 'more'])).toBe('conv-a');
    // Under three items, the opening alone would decide: another chat.
    threads.set('conv-b', thread('hi', 'secret'));
    expect(routes.route(threads, 'conv-b', ['hi', 'other'])).toBe('conv-b.1');
  });

  it("never routes to another opening's thread, even one whose name starts alike", () => {
    const routes = new ThreadRoutes();
    const threads = new RecentMap<string, RoutedThread>({ max: 10 });
    threads.set('conv-ab', thread('hi'));
    expect(routes.route(threads, 'conv-a', ['hi', 'there'])).toBe('conv-a');
  });
});

describe('ThreadRoutes.serially', () => {
  it('runs the tasks of one key one after another, and of different keys side by side', async () => {
    const routes = new ThreadRoutes();
    const events: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = routes.serially('a', async () => {
      events.push('a1 start');
      await held;
      events.push('a1 end');
    });
    const second = routes.serially('a', async () => {
      events.push('a2 start');
    });
    const other = routes.serially('b', async () => {
      events.push('b start');
    });
    await other;
    expect(events).toEqual(['a1 start', 'b start']);
    release();
    await Promise.all([first, second]);
    expect(events).toEqual(['a1 start', 'b start', 'a1 end', 'a2 start']);
  });

  it('goes on with the next task of a key after one fails', async () => {
    const routes = new ThreadRoutes();
    const failed = routes.serially('a', async () => {
      throw new Error('boom');
    });
    await expect(failed).rejects.toThrow('boom');
    await expect(routes.serially('a', async () => 'next')).resolves.toBe('next');
  });
});
