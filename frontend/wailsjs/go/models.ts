export namespace app {
	
	export class Info {
	    name: string;
	    version: string;
	    mode: string;
	    data_dir: string;
	    provider: settings.ProviderStatus;
	    model: string;
	    dashboard_url: string;
	    workspace: string;
	    commit?: string;
	    log_file?: string;
	    sandbox?: string;
	    startup_error?: string;
	    startup_hint?: string;
	
	    static createFrom(source: any = {}) {
	        return new Info(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.version = source["version"];
	        this.mode = source["mode"];
	        this.data_dir = source["data_dir"];
	        this.provider = this.convertValues(source["provider"], settings.ProviderStatus);
	        this.model = source["model"];
	        this.dashboard_url = source["dashboard_url"];
	        this.workspace = source["workspace"];
	        this.commit = source["commit"];
	        this.log_file = source["log_file"];
	        this.sandbox = source["sandbox"];
	        this.startup_error = source["startup_error"];
	        this.startup_hint = source["startup_hint"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ReadyReport {
	    version: string;
	    data_dir: string;
	
	    static createFrom(source: any = {}) {
	        return new ReadyReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.data_dir = source["data_dir"];
	    }
	}

}

export namespace ipc {
	
	export class AttachmentInfo {
	    id: string;
	    name?: string;
	    kind: string;
	    media_type: string;
	    bytes: number;
	    width?: number;
	    height?: number;
	    resized?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new AttachmentInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.kind = source["kind"];
	        this.media_type = source["media_type"];
	        this.bytes = source["bytes"];
	        this.width = source["width"];
	        this.height = source["height"];
	        this.resized = source["resized"];
	    }
	}

}

export namespace settings {
	
	export class ProviderStatus {
	    configured: boolean;
	    providers: string[];
	    sources: string[];
	
	    static createFrom(source: any = {}) {
	        return new ProviderStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.configured = source["configured"];
	        this.providers = source["providers"];
	        this.sources = source["sources"];
	    }
	}

}

export namespace smoketest {
	
	export class FrameStats {
	    frames: number;
	    max_gap_ms: number;
	
	    static createFrom(source: any = {}) {
	        return new FrameStats(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.frames = source["frames"];
	        this.max_gap_ms = source["max_gap_ms"];
	    }
	}
	export class RenderedMessage {
	    role: string;
	    status: string;
	    text: string;
	    words?: number;
	    outcome?: string;
	    retry?: boolean;
	    images?: number;
	    images_loaded?: number;
	    files?: string[];
	
	    static createFrom(source: any = {}) {
	        return new RenderedMessage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.role = source["role"];
	        this.status = source["status"];
	        this.text = source["text"];
	        this.words = source["words"];
	        this.outcome = source["outcome"];
	        this.retry = source["retry"];
	        this.images = source["images"];
	        this.images_loaded = source["images_loaded"];
	        this.files = source["files"];
	    }
	}
	export class PageReport {
	    kind: string;
	    page_id: string;
	    session_id: string;
	    running: boolean;
	    messages: RenderedMessage[];
	    frame_stats?: FrameStats;
	    composer_attachments?: string[];
	    quit_prompt?: boolean;
	    startup_error?: string;
	    ready?: boolean;
	    dialog?: string;
	    zoom?: string;
	    width?: number;
	
	    static createFrom(source: any = {}) {
	        return new PageReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.page_id = source["page_id"];
	        this.session_id = source["session_id"];
	        this.running = source["running"];
	        this.messages = this.convertValues(source["messages"], RenderedMessage);
	        this.frame_stats = this.convertValues(source["frame_stats"], FrameStats);
	        this.composer_attachments = source["composer_attachments"];
	        this.quit_prompt = source["quit_prompt"];
	        this.startup_error = source["startup_error"];
	        this.ready = source["ready"];
	        this.dialog = source["dialog"];
	        this.zoom = source["zoom"];
	        this.width = source["width"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

