import { describe, expect, it } from "vitest";
import { SharedReadings } from "../../src/porch/shared-readings.js";

/**
 * The index reads the registrations of one repository (Porch's layout: a registration a directory)
 * together after a change: they share one listing of the repository and what is found from it, but a
 * reading never takes a listing older than itself, so that a write answered before it began is in what
 * it reads. The clock is the test's.
 */
describe("readings of one repository shared by registrations read together", () => {
  const clock = () => {
    let t = 0;
    return { now: () => t, at: (v: number) => (t = v) };
  };
  const counted = () => {
    let n = 0;
    return {
      read: async () => {
        n += 1;
        return [`listing ${n}`];
      },
      count: () => n,
    };
  };

  it("lists once for the registrations that began reading before the listing did", async () => {
    const c = clock();
    const shared = new SharedReadings(c.now);
    const listing = counted();
    // three registrations begin at 10; the first lists at 11, the others ask after
    c.at(11);
    const a = shared.listing("acme/porch-test", 10, listing.read);
    const b = shared.listing("acme/porch-test", 10, listing.read);
    const other = shared.listing("acme/other", 10, listing.read);
    expect(await a).toEqual(["listing 1"]);
    expect(await b).toBe(await a);
    expect(await other).toEqual(["listing 2"]);
    expect(listing.count()).toBe(2);
  });

  it("lists again for a reading begun after the listing started, which later readings then share", async () => {
    const c = clock();
    const shared = new SharedReadings(c.now);
    const listing = counted();
    c.at(11);
    const first = await shared.listing("acme/porch-test", 10, listing.read);
    // a write answered at 12 marks a registration changed; its reading begins at 13: the listing of 11
    // may not hold the write, so it lists itself
    c.at(14);
    const late = await shared.listing("acme/porch-test", 13, listing.read);
    expect(late).not.toBe(first);
    expect(late).toEqual(["listing 2"]);
    // one begun at 13 as well shares the listing of 14
    expect(await shared.listing("acme/porch-test", 13, listing.read)).toBe(late);
    expect(listing.count()).toBe(2);
  });

  it("finds what a listing holds once for all who hold that listing, and anew from another", async () => {
    const shared = new SharedReadings(() => 0);
    const one = Promise.resolve(["refs"]);
    const two = Promise.resolve(["refs"]);
    let found = 0;
    const find = async () => ++found;
    expect(await shared.derived(one, "revisions on main", find)).toBe(1);
    expect(await shared.derived(one, "revisions on main", find)).toBe(1);
    expect(await shared.derived(one, "revisions on release", find)).toBe(2);
    expect(await shared.derived(two, "revisions on main", find)).toBe(3);
  });

  it("shares nothing once the readings together are over", async () => {
    const shared = new SharedReadings(() => 5);
    const listing = counted();
    const first = await shared.listing("acme/porch-test", 0, listing.read);
    shared.close();
    expect(await shared.listing("acme/porch-test", 0, listing.read)).not.toBe(first);
    const source = Promise.resolve([]);
    let found = 0;
    await shared.derived(source, "k", async () => ++found);
    await shared.derived(source, "k", async () => ++found);
    expect(found).toBe(2);
    expect(listing.count()).toBe(2);
  });
});
