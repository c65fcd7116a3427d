"""A parser for the subset of the Smithy IDL that DataZone form types use, and a validator of form content.

Hand-written because no maintained Python library parses the Smithy IDL: the reference implementation is
the Java smithy CLI, and the Python `smithy-*` packages are code-generation runtimes that read no IDL.

- `model`: the parsed model (shapes, members, traits) and the prelude; `SmithyError`.
- `lexer`: IDL text -> tokens (strings, text blocks, numbers, identifiers, `///` documentation).
- `parser`: tokens -> a resolved `SmithyModel` (`parse`).
- `validator`: form content (parsed JSON) checked against a structure of a model (`FormValidator`).

Supported: `$version`, `metadata`, `namespace`, `use`; `structure`, `union`, `list`, `set`, `map`, `enum`,
`intEnum` and every simple shape; traits with or without arguments (`@required`, `@documentation("..")`,
`@length(min: 1)`, `@amazon.datazone#searchable(modes: ["LEXICAL"])`); `///` documentation comments;
member defaults (`= value`). Not supported (rejected with SmithyError): `apply`, mixins (`with`),
resources, services, operations and target elision (`$member`).

Content is validated the way DataZone reports it: JSON-Schema-style messages rooted at `$.<FormName>`,
e.g. `$.MyForm.columns[0].columnName: is missing but it is required`.
"""
