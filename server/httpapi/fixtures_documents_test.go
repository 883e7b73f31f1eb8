package httpapi

import (
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, documentFixtures) }

// fullDocument is a store delivery: every field set.
func fullDocument() *switchboardv1.Document {
	return &switchboardv1.Document{
		Id: "ckx2d0c1a0000qzrmdocument1", Title: "Lead finder: \"Q3\" <leads>", MimeType: "application/json",
		Size: proto.Int32(2048), Source: "marketplace", SharedBy: proto.String("Lead finder"),
		ExecutionId: proto.String("ckx2e0x1a0000qzrmexecution"), Text: true, CreatedAt: tsCreated, UpdatedAt: tsUsed,
	}
}

// sparseDocument is a delivery written before sizes were recorded: no
// size, nobody named as sharing it, no execution.
func sparseDocument() *switchboardv1.Document {
	return &switchboardv1.Document{
		Id: "ckx2d0c2b0001qzrmdocument2", Title: "Old delivery", MimeType: "text/plain", Source: "marketplace",
		Text: true, CreatedAt: tsCreated, UpdatedAt: tsCreated,
	}
}

// imageDocument is an uploaded PNG: binary, text false.
func imageDocument() *switchboardv1.Document {
	return &switchboardv1.Document{
		Id: "ckx2d0c4d0003qzrmdocument4", Title: "Chart", MimeType: "image/png", Size: proto.Int32(1234),
		Source: "local", CreatedAt: tsCreated, UpdatedAt: tsCreated,
	}
}

// documentFixtures covers DocumentService.
func documentFixtures() []fixture {
	return []fixture{
		single("ListDocumentsResponse", "full", &switchboardv1.ListDocumentsResponse{
			Documents:  []*switchboardv1.Document{fullDocument(), sparseDocument(), imageDocument()},
			Pagination: &switchboardv1.Pagination{Total: 4, Limit: 3, HasMore: true},
		}),
		single("ListDocumentsResponse", "sparse", &switchboardv1.ListDocumentsResponse{
			Documents: []*switchboardv1.Document{}, Pagination: &switchboardv1.Pagination{Limit: 50},
		}),
		single("CreateDocumentResponse", "full", &switchboardv1.CreateDocumentResponse{Document: fullDocument()}),
		single("CreateDocumentResponse", "sparse", &switchboardv1.CreateDocumentResponse{Document: sparseDocument()}),
		single("UpdateDocumentResponse", "full", &switchboardv1.UpdateDocumentResponse{Document: fullDocument()}),
		single("UpdateDocumentResponse", "sparse", &switchboardv1.UpdateDocumentResponse{Document: sparseDocument()}),
		single("DeleteDocumentResponse", "full", &switchboardv1.DeleteDocumentResponse{Document: fullDocument()}),
		single("DeleteDocumentResponse", "sparse", &switchboardv1.DeleteDocumentResponse{Document: sparseDocument()}),
		single("GetDocumentContentResponse", "truncated", &switchboardv1.GetDocumentContentResponse{
			Success: true, Content: "{\"leads\": [\"Ada\", \"Grace\"", Source: "marketplace", Truncated: true,
			TotalLength: 9000, Note: proto.String("content cut at 8000 of 9000 characters"), Document: fullDocument(),
		}),
		single("GetDocumentContentResponse", "binary", &switchboardv1.GetDocumentContentResponse{
			Success: true, Source: "local",
			Note:     proto.String("Chart is a binary file (image/png, 1234 bytes): it has no text content; GET /api/documents/ckx2d0c4d0003qzrmdocument4/raw serves the file"),
			Document: imageDocument(),
		}),
		single("GetDocumentContentResponse", "empty", &switchboardv1.GetDocumentContentResponse{
			Success: true, Source: "local", Document: &switchboardv1.Document{
				Id: "ckx2d0c3c0002qzrmdocument3", Title: "Blank", MimeType: "text/plain", Size: proto.Int32(0),
				Source: "local", Text: true, CreatedAt: tsCreated, UpdatedAt: tsCreated,
			},
		}),
	}
}
