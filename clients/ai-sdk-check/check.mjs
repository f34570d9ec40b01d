// Sends one message to the service's POST /v1/ui/chat with the AI SDK's own transport
// (what useChat uses) and assembles the reply with the AI SDK's own reader, then prints the
// assembled UIMessage as JSON. Also tries the transport's resume path once the reply is done.
//
// node check.mjs <baseUrl> <chatId> <clientToken> <message> <pageUrl>
import { DefaultChatTransport, readUIMessageStream } from "ai";

const [baseUrl, chatId, token, text, pageUrl] = process.argv.slice(2);
if (!pageUrl) {
  console.error("usage: node check.mjs <baseUrl> <chatId> <clientToken> <message> <pageUrl>");
  process.exit(2);
}

const transport = new DefaultChatTransport({
  api: `${baseUrl}/v1/ui/chat`,
  headers: { Authorization: `Bearer ${token}` },
  body: { currentUrl: pageUrl },
});

const errors = [];
const chunks = await transport.sendMessages({
  trigger: "submit-message",
  chatId,
  messageId: undefined,
  messages: [{ id: "ui-user-1", role: "user", parts: [{ type: "text", text }] }],
  abortSignal: undefined,
});

let message;
for await (const state of readUIMessageStream({
  stream: chunks,
  onError: (error) => errors.push(String(error)),
  terminateOnError: true,
})) {
  message = state;
}

const resumed = await transport.reconnectToStream({ chatId });
console.log(JSON.stringify({ message, errors, resumedWhenIdle: resumed !== null }));
