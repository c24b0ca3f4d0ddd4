import { describe, expect, it } from '@jest/globals';
import { SharedReads } from '../../src/platform/event-sourcing/shared-reads.js';

/** A read that ends when the test says so, numbered in the order reads started. */
function controlledReads() {
  const started: Array<{ finish: (value: string) => void; fail: (error: Error) => void }> = [];
  const read = (): Promise<string> =>
    new Promise<string>((finish, fail) => {
      started.push({ finish, fail });
    });
  return { started, read };
}

describe('SharedReads', () => {
  it('callers arriving during a read share the next read, which starts only when the running one ends', async () => {
    const reads = new SharedReads();
    const { started, read } = controlledReads();
    const first = reads.read('stream-a', 'fold', read);
    expect(started).toHaveLength(1);
    const second = reads.read('stream-a', 'fold', read);
    const third = reads.read('stream-a', 'fold', read);
    // The running read began before they asked: they do not get it.
    expect(started).toHaveLength(1);
    started[0]!.finish('read 1');
    await expect(first).resolves.toBe('read 1');
    expect(started).toHaveLength(2);
    started[1]!.finish('read 2');
    await expect(second).resolves.toBe('read 2');
    await expect(third).resolves.toBe('read 2');
    // Nothing waits any more: the next caller starts a read of its own at once.
    const fourth = reads.read('stream-a', 'fold', read);
    expect(started).toHaveLength(3);
    started[2]!.finish('read 3');
    await expect(fourth).resolves.toBe('read 3');
  });

  it('other keys and other kinds of read are never shared; a failed read fails only its own callers', async () => {
    const reads = new SharedReads();
    const { started, read } = controlledReads();
    const a = reads.read('stream-a', 'fold', read);
    const b = reads.read('stream-b', 'fold', read);
    expect(started).toHaveLength(2);
    const waiting = reads.read('stream-a', 'fold', read);
    const otherFold = reads.read('stream-a', 'other fold', read);
    expect(started).toHaveLength(3); // the other fold reads on its own
    started[0]!.fail(new Error('connection lost'));
    await expect(a).rejects.toThrow('connection lost');
    started[1]!.finish('b');
    started[2]!.finish('other');
    await expect(b).resolves.toBe('b');
    await expect(otherFold).resolves.toBe('other');
    expect(started).toHaveLength(4); // the waiting caller's read started after the failure
    started[3]!.finish('a again');
    await expect(waiting).resolves.toBe('a again');
  });
});
