/**
 * How the CLI tells errors apart: by their stable `code` and the `details` they carry, never by their
 * message (`codeOf` and `detailsOf` are the loader's, so there is one definition of each).
 * @module
 */
export { codeOf, detailsOf } from 'dsh-loader'
