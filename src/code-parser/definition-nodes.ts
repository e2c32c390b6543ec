import type { CodeLanguage } from '../core/working-set/code-outline.js';

/** The syntax nodes that are definitions, per grammar, and what the outline calls them. */
export const definitionNodes: Record<CodeLanguage, Record<string, string>> = {
  typescript: tsNodes(),
  tsx: tsNodes(),
  javascript: tsNodes(),
  python: { function_definition: 'function', class_definition: 'class' },
  go: { function_declaration: 'function', method_declaration: 'method', type_spec: 'type' },
  rust: {
    function_item: 'function',
    function_signature_item: 'function',
    struct_item: 'struct',
    enum_item: 'enum',
    trait_item: 'trait',
    impl_item: 'impl',
    type_item: 'type',
    mod_item: 'module',
  },
  java: {
    class_declaration: 'class',
    interface_declaration: 'interface',
    enum_declaration: 'enum',
    record_declaration: 'record',
    method_declaration: 'method',
    constructor_declaration: 'constructor',
  },
  c: cNodes(),
  cpp: { ...cNodes(), class_specifier: 'class' },
  csharp: {
    class_declaration: 'class',
    interface_declaration: 'interface',
    struct_declaration: 'struct',
    enum_declaration: 'enum',
    record_declaration: 'record',
    method_declaration: 'method',
    constructor_declaration: 'constructor',
  },
  ruby: { method: 'method', singleton_method: 'method', class: 'class', module: 'module' },
  php: {
    function_definition: 'function',
    method_declaration: 'method',
    class_declaration: 'class',
    interface_declaration: 'interface',
    trait_declaration: 'trait',
    enum_declaration: 'enum',
  },
  kotlin: { function_declaration: 'function', class_declaration: 'class', object_declaration: 'object' },
  // A Swift class, struct, enum, extension or actor is a `class_declaration`: its kind is read off it.
  swift: {
    function_declaration: 'function',
    init_declaration: 'constructor',
    class_declaration: 'class',
    protocol_declaration: 'protocol',
  },
};

/** C and C++ (a struct, union or enum counts only with its body: `struct buffer *b` names one). */
function cNodes(): Record<string, string> {
  return {
    function_definition: 'function',
    struct_specifier: 'struct',
    union_specifier: 'union',
    enum_specifier: 'enum',
    type_definition: 'type',
    preproc_def: 'constant',
    preproc_function_def: 'macro',
  };
}

function tsNodes(): Record<string, string> {
  return {
    function_declaration: 'function',
    generator_function_declaration: 'function',
    class_declaration: 'class',
    abstract_class_declaration: 'class',
    interface_declaration: 'interface',
    type_alias_declaration: 'type',
    enum_declaration: 'enum',
    method_definition: 'method',
    abstract_method_signature: 'method',
    variable_declarator: 'function',
  };
}

/** The grammar file of each language in `tree-sitter-wasms` (`out/tree-sitter-<name>.wasm`). */
export const grammarFiles: Record<CodeLanguage, string> = {
  typescript: 'tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-tsx.wasm',
  javascript: 'tree-sitter-javascript.wasm',
  python: 'tree-sitter-python.wasm',
  go: 'tree-sitter-go.wasm',
  rust: 'tree-sitter-rust.wasm',
  java: 'tree-sitter-java.wasm',
  c: 'tree-sitter-c.wasm',
  cpp: 'tree-sitter-cpp.wasm',
  csharp: 'tree-sitter-c_sharp.wasm',
  ruby: 'tree-sitter-ruby.wasm',
  php: 'tree-sitter-php.wasm',
  kotlin: 'tree-sitter-kotlin.wasm',
  swift: 'tree-sitter-swift.wasm',
};

/** A variable is a definition when it holds a function (`const run = async () => …`). */
export const functionValues = new Set([
  'arrow_function',
  'function_expression',
  'function',
  'generator_function',
]);
