// The dialect rule (README, Development): queries are written with kysely (src/db/kysely.ts); raw SQL only for the
// set-based statements that need it, each an exported constant named `…_SQL` whose comment says why it is raw, run
// by `runSql` (src/db/run-sql.ts), which binds its values. So a statement handed to `runSql(em, …)` is such a
// constant, and `.execute(…)` (MikroORM's, which writes the values into the SQL text) takes no raw statement.
const NAMED = /^[A-Z][A-Z0-9_]*_SQL$/;

/** The `export const NAME = …` declaring `name` in this module, with the comments before it. */
function exportedConstant(sourceCode, program, name) {
  for (const statement of program.body) {
    const declaration = statement.type === 'ExportNamedDeclaration' ? statement.declaration : undefined;
    if (declaration?.type !== 'VariableDeclaration' || declaration.kind !== 'const') continue;
    if (declaration.declarations.some((d) => d.id.type === 'Identifier' && d.id.name === name)) return { statement, comments: sourceCode.getCommentsBefore(statement) };
  }
  return undefined;
}

function importedFrom(program, name) {
  return program.body.some((s) => s.type === 'ImportDeclaration' && s.specifiers.some((spec) => spec.local.name === name));
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'kysely for queries; raw SQL only as an exported, commented `…_SQL` constant.' },
    messages: {
      inline: 'Write the query with kysely (src/db/kysely.ts); a set-based statement that needs raw SQL is an exported `…_SQL` constant whose comment says why.',
      unnamed: 'Raw SQL goes in an exported constant named `…_SQL`, whose comment says why it is raw.',
      uncommented: '{{name}}: say in a comment above it why this statement is raw SQL.',
      bound: 'Run raw statements with runSql (src/db/run-sql.ts): em.execute writes each value into the SQL text.',
    },
  },
  create(context) {
    const sourceCode = context.sourceCode;
    return {
      CallExpression(node) {
        const callee = node.callee;
        const runs = callee.type === 'Identifier' && callee.name === 'runSql';
        const executes = callee.type === 'MemberExpression' && callee.property.type === 'Identifier' && callee.property.name === 'execute';
        if (!runs && !executes) return;
        const statement = runs ? node.arguments[1] : node.arguments[0];
        if (!statement) return;
        if (statement.type === 'Literal' || statement.type === 'TemplateLiteral' || statement.type === 'BinaryExpression') {
          context.report({ node: statement, messageId: 'inline' });
          return;
        }
        if (statement.type !== 'Identifier') return;
        if (executes && NAMED.test(statement.name)) {
          context.report({ node: statement, messageId: 'bound' });
          return;
        }
        if (!NAMED.test(statement.name)) {
          context.report({ node: statement, messageId: 'unnamed' });
          return;
        }
        const program = sourceCode.ast;
        if (importedFrom(program, statement.name)) return;
        const declared = exportedConstant(sourceCode, program, statement.name);
        if (!declared) context.report({ node: statement, messageId: 'unnamed' });
        else if (declared.comments.length === 0) context.report({ node: statement, messageId: 'uncommented', data: { name: statement.name } });
      },
    };
  },
};
