import { describe, expect, it } from '@jest/globals';
import { ForegroundActivity } from '../../src/platform/scheduling/foreground-activity.js';

const settled = async (promise: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('ForegroundActivity: requests in flight go before projection batches', () => {
  it('is quiet at once with no request in flight', async () => {
    expect(await settled(new ForegroundActivity().quiet(10_000))).toBe(true);
  });

  it('waits for the last request in flight to end; a second end of the same request counts once', async () => {
    const activity = new ForegroundActivity();
    const first = activity.enter();
    const second = activity.enter();
    const quiet = activity.quiet(10_000);
    first();
    first();
    expect(activity.inFlight).toBe(1);
    expect(await settled(quiet)).toBe(false);
    second();
    expect(await settled(quiet)).toBe(true);
  });

  it('never waits longer than its bound, so projections always progress', async () => {
    const activity = new ForegroundActivity();
    activity.enter();
    const started = Date.now();
    await activity.quiet(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(activity.inFlight).toBe(1);
  });

  it('a request waiting for its own projections is parked: it does not hold them back', async () => {
    const activity = new ForegroundActivity();
    const leave = activity.enter();
    let quietWhileParked = false;
    await activity.parked(async () => {
      quietWhileParked = await settled(activity.quiet(10_000));
    });
    expect(quietWhileParked).toBe(true);
    expect(activity.inFlight).toBe(1);
    leave();
    expect(activity.inFlight).toBe(0);
  });

  it('parking outside any request changes nothing', async () => {
    const activity = new ForegroundActivity();
    await activity.parked(async () => undefined);
    expect(activity.inFlight).toBe(0);
  });

  it('a wait parked outside any request never leaves a request counted after it ended', async () => {
    const activity = new ForegroundActivity();
    const leave = activity.enter();
    let release!: () => void;
    const sweeperWait = activity.parked(() => new Promise<void>((resolve) => (release = resolve)));
    leave();
    release();
    await sweeperWait;
    expect(activity.inFlight).toBe(0);
    expect(await settled(activity.quiet(10_000))).toBe(true);
  });

  describe('with a linger (ADR 0131): quiet means no request for that long', () => {
    it('waits the linger after the last request ended, then lets the projections go', async () => {
      const activity = new ForegroundActivity({ lingerMs: 40 });
      activity.enter()();
      const started = performance.now();
      await activity.quiet(10_000);
      expect(performance.now() - started).toBeGreaterThanOrEqual(30);
    });

    it('a request that comes within the linger holds the projections back until it ends and lingers', async () => {
      const activity = new ForegroundActivity({ lingerMs: 30 });
      activity.enter()();
      const quiet = activity.quiet(10_000);
      const next = activity.enter();
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(await settled(quiet)).toBe(false);
      next();
      expect(await settled(quiet)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await settled(quiet)).toBe(true);
    });

    it('is quiet at once when the last request ended longer ago than the linger', async () => {
      const activity = new ForegroundActivity({ lingerMs: 20 });
      activity.enter()();
      await new Promise((resolve) => setTimeout(resolve, 40));
      expect(await settled(activity.quiet(10_000))).toBe(true);
    });

    it('a parked wait (someone reads their own writes) cuts the linger short', async () => {
      const activity = new ForegroundActivity({ lingerMs: 10_000 });
      const leave = activity.enter();
      let quietWhileParked = false;
      await activity.parked(async () => {
        quietWhileParked = await settled(activity.quiet(60_000));
      });
      leave();
      expect(quietWhileParked).toBe(true);
    });

    it('never waits longer than its bound', async () => {
      const activity = new ForegroundActivity({ lingerMs: 10_000 });
      activity.enter()();
      const started = performance.now();
      await activity.quiet(30);
      expect(performance.now() - started).toBeLessThan(5_000);
    });
  });
});
