/**
 * The directories of the skills a server serves, for `resources/directory/read` (SEP-2640): each
 * directory's direct children, files with their mime type and subdirectories as `inode/directory`.
 */
import { DIRECTORY_MIME_TYPE } from '../../schema/skills';

/** One child of a directory as `resources/directory/read` lists it. */
export interface DirectoryChild {
  readonly uri: string;
  readonly name: string;
  readonly mimeType: string;
  readonly size?: number;
}

/** A file to place in the tree. */
export interface TreeFile {
  readonly uri: string;
  readonly mimeType: string;
  readonly size: number;
}

/** Directories by URI (no trailing slash), each with its children by URI. */
export class SkillTree {
  private readonly directories = new Map<string, Map<string, DirectoryChild>>();

  /** Places `files`, whose URIs start with `base`, and every directory above them up to the first segment. */
  add(files: readonly TreeFile[], base: string): void {
    for (const file of files) {
      const segments = file.uri.slice(base.length).split('/');
      let parent = `${base}${segments[0]!}`;
      this.directory(parent);
      for (let index = 1; index < segments.length; index++) {
        const uri = `${parent}/${segments[index]!}`;
        const last = index === segments.length - 1;
        const child: DirectoryChild = last
          ? { uri, name: segments[index]!, mimeType: file.mimeType, size: file.size }
          : { uri, name: segments[index]!, mimeType: DIRECTORY_MIME_TYPE };
        this.directory(parent).set(uri, child);
        if (!last) this.directory(uri);
        parent = uri;
      }
    }
  }

  /** The children of directory `uri`, directories first, each group by name; undefined when `uri` is no directory. */
  children(uri: string): DirectoryChild[] | undefined {
    const children = this.directories.get(uri.endsWith('/') ? uri.slice(0, -1) : uri);
    if (children === undefined) return undefined;
    const isDirectory = (child: DirectoryChild) => (child.mimeType === DIRECTORY_MIME_TYPE ? 0 : 1);
    return [...children.values()].sort((a, b) => isDirectory(a) - isDirectory(b) || a.name.localeCompare(b.name));
  }

  private directory(uri: string): Map<string, DirectoryChild> {
    let children = this.directories.get(uri);
    if (children === undefined) this.directories.set(uri, (children = new Map()));
    return children;
  }
}
