// The user store: a plain `Map` from id to user, seeded with 10,000 users.
//
// Node runs this code on one thread, so there is no locking to do: a `Map` is all the Rust side's `DashMap` is
// standing in for. In cluster mode every worker builds its own store (a cluster shares no heap), and hands out ids
// from its own block so that two workers never give the same id to different users.

/** How many users every store starts with: ids 1..=10000. */
export const SEED_USERS = 10_000;

/** The size of a cluster worker's id block; also the largest capacity allowed (a `Map`'s limit is 2^24 entries). */
export const ID_BLOCK = 16_777_216;

/**
 * The first id a store hands out. A single process is worker 1; cluster worker `w` (1, 2, … never reused)
 * starts its block at 10000 + (w − 1) × 16,777,216 + 1, so blocks never overlap: a store holds at most
 * 16,777,216 users, seed included, and so creates fewer than 16,777,216.
 */
export function firstIdForWorker(workerId) {
  return SEED_USERS + (workerId - 1) * ID_BLOCK + 1;
}

export class UserStore {
  #users = new Map();
  #nextId;
  #capacity;

  /**
   * @param {object} options
   * @param {number} options.capacity the most users the store holds, seed included (`--max-users`).
   * @param {number} [options.firstId] the id of the first created user (see `firstIdForWorker`).
   */
  constructor({ capacity, firstId = firstIdForWorker(1) }) {
    this.#capacity = capacity;
    this.#nextId = firstId;
    for (let id = 1; id <= SEED_USERS; id++) {
      this.#users.set(id, { id, name: `User ${id}`, email: `user${id}@example.com` });
    }
  }

  /** The most users the store holds, seed included (`--max-users`). */
  get capacity() {
    return this.#capacity;
  }

  /** The user with this id, or `undefined`. */
  get(id) {
    return this.#users.get(id);
  }

  /**
   * Stores a new user under the next id and returns it, or returns `null` when the store is full.
   * The stored object is built here, field by field, from two validated strings: nothing from the request is
   * merged into it, so no unexpected key (`__proto__` included) can ever reach a response.
   */
  create(name, email) {
    if (this.#users.size >= this.#capacity) {
      return null;
    }
    const user = { id: this.#nextId, name, email };
    this.#nextId += 1;
    this.#users.set(user.id, user);
    return user;
  }

  /** How many users the store holds now. */
  get size() {
    return this.#users.size;
  }
}
