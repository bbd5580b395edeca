// Runs the Telegram Bot API emulator (telegram-test-api) on 127.0.0.1:PORT
// until stdin closes or a signal comes; prints "ready" once it listens.
// Usage: node telegram-emulator.js EMULATOR_DIR PORT
const path = require('path');
const [dir, port] = process.argv.slice(2);
const TelegramServer = require(path.join(dir, 'node_modules', 'telegram-test-api'));
const server = new TelegramServer({ port: Number(port), host: '127.0.0.1', storeTimeout: 3600 });
server.start().then(() => {
  process.stdout.write('ready\n');
}, (err) => {
  process.stderr.write(`telegram emulator: ${err}\n`);
  process.exit(1);
});
const stop = () => server.stop().finally(() => process.exit(0));
process.stdin.on('end', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
