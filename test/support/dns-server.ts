import { createSocket, type Socket } from 'node:dgram';

/**
 * A minimal authoritative DNS responder on loopback UDP for tests: answers TXT queries from a table the test
 * edits; an unknown name is NXDOMAIN, a known name without TXT data is an empty answer. Enough for node:dns.
 */
export class TestDnsServer {
  readonly records = new Map<string, string[][]>();
  private constructor(
    private readonly socket: Socket,
    readonly port: number,
  ) {}

  static async start(): Promise<TestDnsServer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const server = new TestDnsServer(socket, socket.address().port);
    socket.on('message', (message, remote) => {
      const answer = server.answer(message);
      if (answer) socket.send(answer, remote.port, remote.address);
    });
    return server;
  }

  /** `127.0.0.1:<port>`, for DNS_SERVERS. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  setTxt(name: string, ...values: string[]): void {
    this.records.set(
      name.toLowerCase(),
      values.map((value) => [value]),
    );
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private answer(query: Buffer): Buffer | null {
    if (query.length < 12) return null;
    const labels: string[] = [];
    let offset = 12;
    while (offset < query.length && query[offset] !== 0) {
      const length = query[offset]!;
      labels.push(query.subarray(offset + 1, offset + 1 + length).toString('ascii'));
      offset += length + 1;
    }
    const questionEnd = offset + 5; // zero byte, QTYPE, QCLASS
    if (questionEnd > query.length) return null;
    const qtype = query.readUInt16BE(offset + 1);
    const name = labels.join('.').toLowerCase();
    const records = this.records.get(name);
    const answers = qtype === 16 && records ? records : [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // id
    header.writeUInt16BE(0x8400 | (query.readUInt16BE(2) & 0x0100) | (records ? 0 : 3), 2); // QR, AA, RD, rcode
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const parts: Buffer[] = [header, query.subarray(12, questionEnd)];
    for (const strings of answers) {
      const data = Buffer.concat(
        strings.map((text) => {
          const bytes = Buffer.from(text, 'utf8');
          return Buffer.concat([Buffer.from([bytes.length]), bytes]);
        }),
      );
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // pointer to the question name
      record.writeUInt16BE(16, 2);
      record.writeUInt16BE(1, 4);
      record.writeUInt32BE(60, 6);
      record.writeUInt16BE(data.length, 10);
      parts.push(record, data);
    }
    return Buffer.concat(parts);
  }
}
