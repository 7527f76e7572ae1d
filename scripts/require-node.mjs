// Runs before every npm script (and npm install) on whatever Node is on the PATH, so it stays plain JavaScript
// that any Node runs: one line naming the version found and the one needed, instead of a stack trace later.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 17)) {
  console.error(`Node ${process.versions.node} found; this project needs Node >= 22.17 (24 LTS recommended).`);
  process.exit(1);
}
