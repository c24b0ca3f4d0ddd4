import { MongoClient } from 'mongodb';

/**
 * How every MongoDB adapter connects (`connect(url, databaseName?)`): majority writes, undefined fields left out,
 * 10 s to find a server; the database is the one named, else the one in the URL's path, else `exposure`.
 */
export async function connectMongo(
  url: string,
  databaseName?: string,
): Promise<{ client: MongoClient; databaseName: string }> {
  const client = new MongoClient(url, {
    writeConcern: { w: 'majority' },
    ignoreUndefined: true,
    serverSelectionTimeoutMS: 10_000,
  });
  await client.connect();
  return { client, databaseName: databaseName ?? databaseNameOf(url) ?? 'exposure' };
}

/** The database named in a MongoDB URL's path, if any. */
export function databaseNameOf(url: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(url);
  const name = match?.[1] ? decodeURIComponent(match[1]) : undefined;
  return name || undefined;
}
