/**
 * Lookups that server reflection answers from the descriptor set: files by name, the file
 * declaring a symbol or an extension, and files serialized together with their transitive
 * dependencies (a client needs all of them to build the descriptors).
 */
import { createFileRegistry, toBinary } from '@bufbuild/protobuf';
import type {
  DescEnum,
  DescExtension,
  DescFile,
  DescMessage,
  DescService,
  FileRegistry,
} from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import type { FileDescriptorSet } from '@bufbuild/protobuf/wkt';

export class DescriptorIndex {
  private readonly registry: FileRegistry;
  private readonly symbols = new Map<string, DescFile>();
  private readonly serialized = new Map<DescFile, Uint8Array>();

  constructor(descriptorSet: FileDescriptorSet) {
    this.registry = createFileRegistry(descriptorSet);
    for (const desc of this.registry) {
      for (const symbol of symbolsOf(desc)) this.symbols.set(symbol, desc.file);
    }
  }

  fileByName(name: string): DescFile | undefined {
    return this.registry.getFile(name);
  }

  /** The file declaring a fully-qualified symbol: a type, service, method, field, oneof or enum value. */
  fileContainingSymbol(symbol: string): DescFile | undefined {
    return this.symbols.get(symbol);
  }

  fileContainingExtension(extendee: string, number: number): DescFile | undefined {
    const message = this.registry.getMessage(extendee);
    return message && this.registry.getExtensionFor(message, number)?.file;
  }

  /** The field numbers of every known extension of a message, or undefined for an unknown message. */
  extensionNumbers(extendee: string): number[] | undefined {
    if (!this.registry.getMessage(extendee)) return undefined;
    const numbers: number[] = [];
    for (const desc of this.registry) {
      if (desc.kind === 'extension' && desc.extendee.typeName === extendee)
        numbers.push(desc.number);
    }
    return numbers;
  }

  /** The serialized FileDescriptorProtos of the file, then of each of its transitive dependencies. */
  withDependencies(file: DescFile): Uint8Array[] {
    const ordered: DescFile[] = [];
    const visit = (current: DescFile) => {
      if (ordered.includes(current)) return;
      ordered.push(current);
      current.dependencies.forEach(visit);
    };
    visit(file);
    return ordered.map((f) => this.serialize(f));
  }

  private serialize(file: DescFile): Uint8Array {
    let bytes = this.serialized.get(file);
    if (!bytes) {
      bytes = toBinary(FileDescriptorProtoSchema, file.proto);
      this.serialized.set(file, bytes);
    }
    return bytes;
  }
}

function symbolsOf(desc: DescMessage | DescEnum | DescExtension | DescService): string[] {
  switch (desc.kind) {
    case 'message':
      return [
        desc.typeName,
        ...[...desc.fields, ...desc.oneofs].map((member) => `${desc.typeName}.${member.name}`),
      ];
    case 'enum': {
      // Enum values are scoped like their enum, not inside it (C++ scoping rules).
      const scope = desc.typeName.slice(0, desc.typeName.length - desc.name.length);
      return [desc.typeName, ...desc.values.map((value) => scope + value.name)];
    }
    case 'service':
      return [desc.typeName, ...desc.methods.map((method) => `${desc.typeName}.${method.name}`)];
    case 'extension':
      return [desc.typeName];
  }
}
