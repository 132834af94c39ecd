/**
 * The soak switch: `DSH_SOAK=1` (as `yarn soak` sets it) turns the generated reliability tests to their
 * long counts. The normal suite keeps them bounded.
 * @module
 */

/** Whether this run is a soak run. */
export const SOAK = process.env.DSH_SOAK === '1'
