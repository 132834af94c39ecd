// Module hooks for `bench/row.ts --root <checkout>`: a package that a bench file imports by name
// (`dsh-agent`, `cordis`) resolves as if the file were in that checkout's bench folder, so the same
// benchmark code times that checkout's built packages. Relative imports and everything the packages
// import themselves resolve as usual.
let bench
let root

export function initialize(data) {
  bench = data.bench
  root = data.root
}

export function resolve(specifier, context, next) {
  const bare = !/^(\.|\/|[a-z]+:)/.test(specifier)
  if (bare && context.parentURL?.startsWith(bench)) return next(specifier, { ...context, parentURL: root })
  return next(specifier, context)
}
