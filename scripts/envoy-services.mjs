// Prints, one per line and sorted, the fully qualified names of the services in a descriptor set
// that have at least one google.api.http rule: the list Envoy's transcoder is told to serve.
import { readFileSync } from 'node:fs';
import { createFileRegistry, fromBinary, hasOption } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';

const registry = createFileRegistry(
  fromBinary(FileDescriptorSetSchema, readFileSync(process.argv[2])),
);
const http = registry.getExtension('google.api.http');
if (!http) throw new Error('the descriptor set lacks google/api/annotations.proto');
const names = [];
for (const file of registry.files) {
  for (const service of file.services) {
    if (service.methods.some((method) => hasOption(method, http))) names.push(service.typeName);
  }
}
process.stdout.write(
  names
    .sort()
    .map((name) => `${name}\n`)
    .join(''),
);
